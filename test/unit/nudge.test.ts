/**
 * When a streamed body nudges V8's collector (transport/body.ts): once every
 * NUDGE_EVERY bytes, whatever the chunk sizes. Whether the nudge lowers RSS is
 * measured by `npm run bench:files`, not asserted here.
 */
import { NUDGE_EVERY, nudgeDue } from '../../nodes/Workplace/transport/body';

const MiB = 1024 * 1024;

describe('nudgeDue', () => {
	it.each([
		['the first bytes', 0, 64 * 1024, false],
		['a chunk ending just short of the mark', NUDGE_EVERY - 2, NUDGE_EVERY - 1, false],
		['a chunk reaching the mark exactly', NUDGE_EVERY - 10, NUDGE_EVERY, true],
		['a chunk across the mark', NUDGE_EVERY - 10, NUDGE_EVERY + 10, true],
		['a chunk starting at the mark', NUDGE_EVERY, NUDGE_EVERY + 10, false],
		['a chunk across the third mark', 3 * NUDGE_EVERY - 1, 3 * NUDGE_EVERY + 1, true],
		['an empty chunk at the mark', NUDGE_EVERY, NUDGE_EVERY, false],
	])('%s: %s → %s bytes, due %s', (_label, before, after, due) => {
		expect(nudgeDue(before, after)).toBe(due);
	});

	it.each([1000, 16 * 1024, 64 * 1024, 3 * MiB])('nudges 5 times in 100 MiB passed in chunks of %s bytes', (chunk) => {
		let bytes = 0;
		let nudges = 0;
		while (bytes < 100 * MiB) {
			const next = Math.min(100 * MiB, bytes + chunk);
			if (nudgeDue(bytes, next)) nudges++;
			bytes = next;
		}
		expect(nudges).toBe(Math.floor((100 * MiB) / NUDGE_EVERY));
		expect(nudges).toBe(5);
	});
});
