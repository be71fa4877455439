/**
 * The two lanes `npm run e2e` runs side by side when given no arguments
 * (scripts/e2e.sh), each a jest process with E2E_LANE set:
 * - schedule: suites that spend most of their wall time waiting for n8n's
 *   poll schedule (every minute, the shortest n8n allows), with little for the
 *   CPU to do meanwhile;
 * - others: every other suite.
 * Each lane runs its suites one at a time. Without E2E_LANE, jest runs every
 * suite (one at a time), as a run of chosen suites does.
 */
const SCHEDULE_SUITES = ['knowledgeTrigger', 'knowledgeTriggerQueue', 'versions'];
const LANES = ['schedule', 'others'];

/** testMatch and testPathIgnorePatterns of e2e/jest.config.js for a lane (undefined: every suite). */
function laneSelection(lane) {
	if (lane !== undefined && !LANES.includes(lane)) throw new Error(`E2E_LANE is "${lane}": use ${LANES.join(' or ')}`);
	return {
		testMatch: lane === 'schedule' ? SCHEDULE_SUITES.map((name) => `**/tests/${name}.e2e.test.ts`) : ['**/*.e2e.test.ts'],
		testPathIgnorePatterns: ['/node_modules/', ...(lane === 'others' ? SCHEDULE_SUITES.map((name) => `/tests/${name}\\.e2e\\.test\\.ts$`) : [])],
	};
}

module.exports = { SCHEDULE_SUITES, LANES, laneSelection };
