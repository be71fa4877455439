/**
 * Measurements the suites take for the record (docs/performance.md and
 * docs/operations.md cite some of them): printed when FIGURES is set, e.g.
 * `FIGURES=1 bash scripts/with-node24.sh npx jest test/nodes/paging.test.ts`,
 * and left out of `npm test`, whose output says what ran, what failed and the
 * totals. What the figures must be is asserted by the tests themselves.
 */
export function figure(text: string): void {
	if (process.env.FIGURES) console.log(text);
}
