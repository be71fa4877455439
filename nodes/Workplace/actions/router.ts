/**
 * Runs the selected operation for every input item through the transport,
 * several at a time (itemsAtOnce in requestSettings.ts; from node version 4
 * under the service's limiter). Output items keep the input order and are
 * paired to their input; with Continue On Fail each failed item becomes an
 * error item paired to the input that failed.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { addToDescription, apiRequest, SERVICE_APIS, asNodeError, limiterFor, read, type ApiRequest, type ServiceLimiter } from '../../../shared/transport';
import { BuiltRequests } from './builtRequests';
import { readingConstantsOnce } from './constantParameters';
import { listOutput } from './list';
import { itemsAtOnce, parallelismOf, sendingItem, type Parallelism } from './requestSettings';
import { findOperation } from './resources';
import type { OperationDefinition, ResourceDefinition } from './types';

/** Items whose requests are built in one go, ahead of sending them (BuiltRequests). */
const BUILT_AHEAD = 64;

async function runOperation(
	ctx: IExecuteFunctions,
	resource: ResourceDefinition,
	operation: OperationDefinition,
	i: number,
	requests: BuiltRequests | undefined,
): Promise<INodeExecutionData[]> {
	if (operation.localOutput) return await operation.localOutput.call(ctx, i);
	// There are requests to take exactly when the operation builds them (runItems).
	if (!requests) {
		throw new NodeOperationError(ctx.getNode(), 'This operation neither builds output nor sends a request', { itemIndex: i });
	}
	// What a POST makes is named after its resource ("the task may have been created"),
	// and messages that say what happened name the operation as its action reads.
	const named = (request: ApiRequest): ApiRequest => ({ subject: resource.name.toLowerCase(), operation: operation.action, ...request });
	const request = named(await requests.take(i));
	if (operation.list) return await listOutput(ctx, operation.list, request, i);
	// Read and checked before anything is sent, so a bad setting sends nothing.
	const sending = sendingItem(ctx, i);
	let sent = request;
	const first = await apiRequest(ctx, sent, sending).then(
		(answer) => ({ answer }),
		(error: unknown) => ({ error }),
	);
	let response;
	if ('answer' in first) {
		response = first.answer;
	} else {
		// A refusal the operation knows another way around (e.g. an older path of the same resource).
		const refused = first.error instanceof NodeApiError ? first.error : undefined;
		const second = refused ? operation.fallback?.call(ctx, refused, i, request) : undefined;
		if (!refused || !second) throw asNodeError(ctx, first.error, i);
		sent = named(second);
		response = await apiRequest(ctx, sent, sending).catch((error: unknown) => {
			// Either refusal may be the one that explains: the second's leads, the first's follows.
			throw addToDescription(asNodeError(ctx, error, i), `It was asked first another way, and the service refused that too: ${refused.message}`);
		});
	}
	if (operation.output) return await operation.output.call(ctx, response, i, sent);
	const body = response.body;
	if (Array.isArray(body)) return read.list(body).map((json) => ({ json }));
	return [{ json: read.object(body) ?? { response: body ?? null } }];
}

/** Item i's output in its operation's simplified shape, when the operation has one and Simplify is on. */
function simplified(ctx: IExecuteFunctions, operation: OperationDefinition, i: number, outputs: INodeExecutionData[]): INodeExecutionData[] {
	const simplify = operation.simplify;
	// Versions 1 and 2 have no toggle: their workflows keep the raw answer.
	if (!simplify || ctx.getNodeParameter('simplify', i, false) !== true) return outputs;
	return outputs.map((output) => ({ ...output, json: simplify(output.json) }));
}

/** Any failure of item i as the node error n8n shows, naming the item. */
function nodeErrorOf(ctx: IExecuteFunctions, error: unknown, i: number): NodeApiError | NodeOperationError {
	const nodeError = asNodeError(ctx, error, i);
	if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = i;
	return nodeError;
}

/**
 * Every item's output by input index, whatever order the items end in. With
 * Continue On Fail a failed item's output is an error item; without it, the
 * first failure stops new items from starting, and the failure of the lowest
 * item index is the run's error (items after it may have been sent already).
 */
class ItemOutputs {
	private readonly outputs: INodeExecutionData[][];
	private readonly failures = new Map<number, NodeApiError | NodeOperationError>();
	/** Whether some item succeeded. */
	succeeded = false;

	constructor(
		count: number,
		private readonly continueOnFail: boolean,
	) {
		this.outputs = new Array<INodeExecutionData[]>(count);
	}

	/** Whether new items stop starting. */
	get stopped(): boolean {
		return this.failures.size > 0;
	}

	succeed(i: number, outputs: INodeExecutionData[]): void {
		this.outputs[i] = outputs.map((output) => ({ ...output, pairedItem: { item: i } }));
		this.succeeded = true;
	}

	fail(i: number, error: NodeApiError | NodeOperationError): void {
		if (!this.continueOnFail) {
			this.failures.set(i, error);
			return;
		}
		const json: IDataObject = { error: error.message };
		if (error.description) json.description = error.description;
		if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
		this.outputs[i] = [{ json, pairedItem: { item: i } }];
	}

	/** The outputs in input order, or the failure of the lowest item index. */
	result(): INodeExecutionData[][] {
		if (this.failures.size > 0) throw this.failures.get(Math.min(...this.failures.keys()))!;
		return this.outputs;
	}
}

/**
 * Runs items `from` to `count - 1` in input order, at most `width` at a time;
 * with a limiter, each also waits for its turn from the service's limiter (shared
 * with every other run using the same credential). No item starts once `stopped()`.
 */
async function eachItem(
	from: number,
	count: number,
	width: number,
	limiter: ServiceLimiter | undefined,
	run: (i: number) => Promise<void>,
	stopped: () => boolean,
): Promise<void> {
	let next = from;
	const worker = async (): Promise<void> => {
		for (;;) {
			const release = await limiter?.admit();
			try {
				if (next >= count || stopped()) return;
				await run(next++);
			} finally {
				release?.();
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(0, Math.min(width, count - from)) }, worker));
}

/**
 * Runs every item and returns each item's output by input index. How many run
 * at once follows from the first request an item builds (itemsAtOnce), so items
 * whose request fails to build run one by one until one builds. Where the
 * service's API fetches a token (the bot), items then run one by one until one
 * succeeds: that success fetched the token, which the items started together
 * afterwards share (one token request per run, not one per item).
 */
async function runItems(
	ctx: IExecuteFunctions,
	resource: ResourceDefinition,
	operation: OperationDefinition,
	count: number,
	parallelism: Parallelism,
): Promise<INodeExecutionData[][]> {
	const outputs = new ItemOutputs(count, ctx.continueOnFail());
	const requests = operation.request && new BuiltRequests(operation.request.bind(ctx), count, BUILT_AHEAD);
	const run = async (i: number): Promise<void> => {
		try {
			outputs.succeed(i, simplified(ctx, operation, i, await runOperation(ctx, resource, operation, i, requests)));
		} catch (error) {
			outputs.fail(i, nodeErrorOf(ctx, error, i));
		}
	};
	const stopped = () => outputs.stopped;

	let next = 0;
	let first: ApiRequest | undefined;
	while (requests && next < count && !stopped() && !(first = await requests.peek(next))) await run(next++);
	if (!first) {
		// Nothing to send (a local operation), or no request built: one item after another.
		await eachItem(next, count, 1, undefined, run, stopped);
		return outputs.result();
	}
	if (SERVICE_APIS[first.api].token) {
		while (next < count && !stopped() && !outputs.succeeded) await run(next++);
	}
	const { width, limited } = itemsAtOnce(parallelism, first);
	// A credential that cannot be read fails every item with its own error, limiter or not.
	const limiter = limited ? await limiterFor(ctx, first.api).catch(() => undefined) : undefined;
	await eachItem(next, count, width, limiter, run, stopped);
	return outputs.result();
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	// Operations read parameters without expressions once per run, not once per item.
	const ctx = readingConstantsOnce(this);
	const items = ctx.getInputData();
	const resource = ctx.getNodeParameter('resource', 0) as string;
	const operationName = ctx.getNodeParameter('operation', 0) as string;
	const found = findOperation(resource, operationName);
	if (!found) {
		throw new NodeOperationError(ctx.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const { operation } = found;
	// Read once, with item 0, and checked before anything is sent.
	const parallelism: Parallelism = operation.request ? parallelismOf(ctx) : { fixed: 1 };

	const count = operation.waits ? Math.min(items.length, 1) : items.length;
	const output = (await runItems(ctx, found.resource, operation, count, parallelism)).flat();
	const hints = operation.hints?.call(ctx, output) ?? [];
	if (hints.length > 0) ctx.addExecutionHints(...hints);
	return [output];
}

/** The node's webhook: the chosen operation's (a waiting operation's answers), found as execute() finds it. */
export async function webhookRouter(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const resource = this.getNodeParameter('resource', '') as string;
	const operationName = this.getNodeParameter('operation', '') as string;
	const webhook = findOperation(resource, operationName)?.operation.webhook;
	if (!webhook) throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" takes no webhook calls`);
	return await webhook.call(this);
}
