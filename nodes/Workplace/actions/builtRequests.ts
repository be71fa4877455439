/**
 * Items' requests, built a batch ahead of sending them. Building is n8n's CPU
 * work (parameters, expressions, checks); done for a batch of items in one go
 * instead of between sends and answers, it costs markedly less per item on a
 * fast network (docs/performance.md). Nothing is sent while building, so the
 * service sees nothing different; a failed build is its item's failure, met in
 * that item's turn.
 */
import type { ApiRequest } from '../../../shared/transport';

export class BuiltRequests {
	private readonly built = new Map<number, Promise<ApiRequest>>();
	/** Items below it are built (or taken). */
	private end = 0;

	constructor(
		private readonly build: (i: number) => ApiRequest | Promise<ApiRequest>,
		private readonly count: number,
		/** Items built in one go. */
		private readonly batch: number,
	) {}

	/** Item i's request, being built; from i on, a batch is built when i is not yet. */
	private building(i: number): Promise<ApiRequest> {
		if (i >= this.end) {
			this.end = Math.min(this.count, i + this.batch);
			for (let k = i; k < this.end; k++) {
				const request = (async () => await this.build(k))();
				// Met in its item's turn; never an unhandled rejection if the run stops first.
				request.catch(() => undefined);
				this.built.set(k, request);
			}
		}
		return this.built.get(i)!;
	}

	/** Item i's request, or undefined when it failed to build (take(i) then throws why); it stays to be taken. */
	async peek(i: number): Promise<ApiRequest | undefined> {
		return await this.building(i).then(
			(request) => request,
			() => undefined,
		);
	}

	/** Item i's request; each item is taken once, in input order. */
	async take(i: number): Promise<ApiRequest> {
		const request = this.building(i);
		this.built.delete(i);
		return await request;
	}
}
