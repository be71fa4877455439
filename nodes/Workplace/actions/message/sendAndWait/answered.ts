/**
 * Which waiting nodes this n8n process has taken an answer for, so that of two
 * answers arriving at the same moment only the first resumes the execution.
 * n8n 1.x checks a waiting execution's status without a lock: both answers
 * reach the node's webhook and both would resume it. Per process only (one
 * n8n process receiving the waiting webhooks); entries expire, and the map is
 * bounded, oldest dropped first.
 *
 * A wait is named by its execution, node and question: one execution can wait
 * at the same node more than once (a loop, an AI Agent calling a reviewed tool
 * again), so each question carries its own id in its answers' addresses.
 */
import { randomBytes } from 'crypto';

/** The query parameter of an answer's address that names its question. */
export const QUESTION_PARAMETER = 'question';

export function newQuestionId(): string {
	return randomBytes(8).toString('hex');
}

/** The key of one wait: the execution, the node, the question ('' for an address without one). */
export function waitKey(executionId: string, nodeId: string, question: unknown): string {
	return `${executionId}/${nodeId}/${typeof question === 'string' ? question : ''}`;
}

export class AnsweredWaits {
	private readonly answeredAt = new Map<string, number>();

	constructor(
		private readonly maxEntries: number,
		private readonly keepMs: number,
	) {}

	/** Whether `key` was answered here within the last `keepMs`. */
	has(key: string, now: number): boolean {
		const at = this.answeredAt.get(key);
		return at !== undefined && now - at < this.keepMs;
	}

	/**
	 * Takes the answer for `key`: true for the first answer (it resumes the
	 * execution), false when one was taken already. Synchronous, so two calls
	 * cannot both see `key` free.
	 */
	claim(key: string, now: number): boolean {
		if (this.has(key, now)) return false;
		this.answeredAt.delete(key);
		this.answeredAt.set(key, now);
		for (const [oldest, at] of this.answeredAt) {
			if (this.answeredAt.size <= this.maxEntries && now - at < this.keepMs) break;
			this.answeredAt.delete(oldest);
		}
		return true;
	}

	get size(): number {
		return this.answeredAt.size;
	}
}

/**
 * This process's record. An hour covers answers racing each other and the
 * resume that follows; afterwards n8n itself finds the execution no longer
 * waiting. 10,000 entries bound the memory to well under a megabyte.
 */
export const answeredWaits = new AnsweredWaits(10_000, 60 * 60 * 1000);
