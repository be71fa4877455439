/**
 * The moment an attempt's whole answer, headers and body, must have arrived
 * by. n8n's request helpers take a `timeout` that their HTTP client applies to
 * a silent socket only, so a body sent a byte at a time never reaches it; the
 * deadline is kept here instead, on the platform's AbortSignal.timeout (a
 * timer that never keeps the process alive). A transfer moves it on as the
 * file's bytes arrive (attemptTimeMs).
 */
import { attemptTimeMs } from './limits';

/** An attempt whose answer was not complete at its deadline; `code` is what a socket timeout says, so the retry decision is the same. */
export class DeadlinePassed extends Error {
	readonly code = 'ETIMEDOUT';

	constructor(readonly timeoutMs: number) {
		super(`The answer was not complete within ${timeoutMs} ms`);
		this.name = 'DeadlinePassed';
	}
}

/** Something the deadline can end: a stream, a socket. */
interface Destroyable {
	destroy(error?: Error): unknown;
}

export class Deadline {
	private readonly controller = new AbortController();

	private readonly startedAt = Date.now();

	private endsAt: number;

	/** The timer of the moment last set; held here, since the platform lets go of a timer signal nobody holds. */
	private timer?: AbortSignal;

	/** Bytes of a file moved in this attempt (an upload's size, a download's bytes so far). */
	private fileBytes: number;

	constructor(
		/** The attempt's Timeout. */
		readonly timeoutMs: number,
		uploadBytes = 0,
	) {
		this.fileBytes = uploadBytes;
		this.endsAt = this.startedAt + attemptTimeMs(timeoutMs, uploadBytes);
		this.arm();
	}

	/** Aborted, with a DeadlinePassed as its reason, when the deadline passes. */
	get signal(): AbortSignal {
		return this.controller.signal;
	}

	get passed(): boolean {
		return this.controller.signal.aborted;
	}

	/** The failure to report once the deadline has passed. */
	failure(): DeadlinePassed {
		return new DeadlinePassed(this.timeoutMs);
	}

	/** A download's bytes arrived: the deadline moves on by the time they may take (attemptTimeMs). */
	moved(bytes: number): void {
		this.fileBytes += bytes;
		this.endsAt = this.startedAt + attemptTimeMs(this.timeoutMs, this.fileBytes);
	}

	/** The attempt is over: the deadline no longer applies. */
	release(): void {
		this.timer = undefined;
	}

	private arm(): void {
		const timer = AbortSignal.timeout(Math.max(1, this.endsAt - Date.now()));
		this.timer = timer;
		timer.addEventListener(
			'abort',
			() => {
				// Released, or set again since: this timer no longer counts.
				if (this.timer !== timer) return;
				if (Date.now() < this.endsAt) this.arm();
				else this.controller.abort(this.failure());
			},
			{ once: true },
		);
	}

	/**
	 * `pending`'s result, or DeadlinePassed when the deadline passes first. A
	 * result that arrives after that is handed to `leftover`, so whatever it
	 * holds (an answer's open body) is let go of.
	 */
	async race<T>(pending: Promise<T>, leftover: (late: T) => void): Promise<T> {
		const late = () => void pending.then(leftover, () => undefined);
		if (this.passed) {
			late();
			throw this.failure();
		}
		return await new Promise<T>((resolve, reject) => {
			const onPassed = () => {
				late();
				reject(this.failure());
			};
			this.signal.addEventListener('abort', onPassed, { once: true });
			pending.then(
				(value) => {
					this.signal.removeEventListener('abort', onPassed);
					resolve(value);
				},
				(error: unknown) => {
					this.signal.removeEventListener('abort', onPassed);
					reject(error);
				},
			);
		});
	}

	/** Ends `target` with DeadlinePassed when the deadline passes before the returned function is called. */
	guard(target: Destroyable): () => void {
		const onPassed = () => target.destroy(this.failure());
		if (this.passed) {
			onPassed();
			return () => undefined;
		}
		this.signal.addEventListener('abort', onPassed, { once: true });
		return () => this.signal.removeEventListener('abort', onPassed);
	}
}
