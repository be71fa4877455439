/**
 * Answers this n8n process is handing to n8n right now, so that of two answers
 * arriving at the same moment only the first resumes the execution. n8n 2.x
 * needs none of it: it resumes a waiting execution only after checking, in
 * the same database update, that it still waits. n8n 1.x reads the status
 * without a lock, so two answers in one process would both resume it. An entry
 * matters only until n8n marks the execution running (its own check refuses
 * later answers, and the execution's question record refuses answers to an
 * earlier question), so entries are kept for a minute, at most 10,000 of them.
 * Whether a question is open is never decided here (question.ts).
 */
export class TakenNow {
	private readonly takenAt = new Map<string, number>();

	constructor(
		private readonly maxEntries: number,
		private readonly keepMs: number,
	) {}

	/**
	 * Takes the answer for `key`: true for the first (it resumes the
	 * execution), false while one is taken. Synchronous, so two calls cannot
	 * both see `key` free.
	 */
	take(key: string, now: number): boolean {
		const at = this.takenAt.get(key);
		if (at !== undefined && now - at < this.keepMs) return false;
		this.takenAt.delete(key);
		this.takenAt.set(key, now);
		for (const [oldest, when] of this.takenAt) {
			if (this.takenAt.size <= this.maxEntries && now - when < this.keepMs) break;
			this.takenAt.delete(oldest);
		}
		return true;
	}

	get size(): number {
		return this.takenAt.size;
	}
}

export const takenNow = new TakenNow(10_000, 60_000);
