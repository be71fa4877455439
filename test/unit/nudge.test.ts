/**
 * When a streamed body nudges V8's collector (CollectorNudge in
 * transport/body.ts): only when the chunk it looked at 16 MiB ago has not been
 * collected, and then at most once in 16 MiB, whatever the chunk sizes.
 * Collection is stood in for by the watch the nudge is given (forcing V8 to
 * collect needs a start flag); whether a nudge lowers RSS is measured by
 * `npm run bench:files`, not asserted here.
 */
import { CollectorNudge } from '../../nodes/Workplace/transport/body';

const MiB = 1024 * 1024;

/** Passes `total` bytes in chunks of `size` through a nudge whose watched chunks are never collected, or always. */
function pass(total: number, size: number, collected: boolean): { nudges: number; at: number[] } {
	const nudge = new CollectorNudge((chunk) => ({ deref: () => (collected ? undefined : chunk) }));
	const at: number[] = [];
	const chunk = new Uint8Array(size);
	for (let bytes = 0; bytes < total; ) {
		const part = Math.min(size, total - bytes) === size ? chunk : chunk.subarray(0, total - bytes);
		const before = nudge.nudges;
		nudge.passed(part);
		bytes += part.length;
		if (nudge.nudges > before) at.push(bytes);
	}
	return { nudges: nudge.nudges, at };
}

describe('CollectorNudge', () => {
	it.each([1000, 16 * 1024, 64 * 1024, 3 * MiB])('never nudges when V8 keeps collecting (chunks of %s bytes)', (size) => {
		expect(pass(100 * MiB, size, true).nudges).toBe(0);
	});

	it('never nudges a body under 20 MiB, even when nothing is collected', () => {
		expect(pass(20 * MiB - 1, 64 * 1024, false).nudges).toBe(0);
	});

	it('nudges at 20 MiB and then every 16 MiB when nothing is collected (a consumer keeping every chunk)', () => {
		expect(pass(100 * MiB, 64 * 1024, false).at).toEqual([20, 36, 52, 68, 84, 100].map((n) => n * MiB));
	});

	it.each([1000, 16 * 1024, MiB])('nudges 6 times in 100 MiB of uncollected chunks of %s bytes', (size) => {
		expect(pass(100 * MiB, size, false).nudges).toBe(6);
	});

	it('looks every 4 MiB on average when chunks do not divide it (3 MiB chunks)', () => {
		// Looks at 6, 9, 12, 18, 21, 24, 30, ... MiB: the first nudge at the fifth look (21 MiB), each next four looks later.
		expect(pass(100 * MiB, 3 * MiB, false).at).toEqual([21, 36, 54, 69, 84, 100].map((n) => n * MiB));
	});
});
