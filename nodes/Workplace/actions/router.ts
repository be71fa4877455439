/**
 * Runs the selected operation for every input item through the transport,
 * several at a time (Requests in Parallel, or derived from the request). Output items keep
 * the input order and are paired to their input; with Continue On Fail each
 * failed item becomes an error item paired to the input that failed.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, SERVICE_APIS, asNodeError, paginate, read, safeToRepeat, type ApiRequest } from '../../../shared/transport';
import { numberValue } from '../../../shared/numberValue';
import { readingConstantsOnce } from './constantParameters';
import { AUTO_REQUESTS_IN_PARALLEL, requestsInParallelSetting, sendingItem } from './requestSettings';
import { findOperation } from './resources';
import type { OperationDefinition, ResourceDefinition } from './types';
import { invalid } from '../../../shared/validation';

/** Items whose requests are built in one go, ahead of sending (RequestsAhead). */
const BUILT_AHEAD = 64;

/**
 * Items' requests, built a batch ahead of the workers that send them. Building
 * is n8n's CPU work (parameters, expressions, checks); done for a batch of items
 * in one go instead of between sends and answers, it costs markedly less per
 * item on a fast network (docs/performance.md). Nothing is sent while building,
 * so the service sees nothing different; a failed build is its item's failure,
 * met in that item's turn, as before.
 */
class RequestsAhead {
	private readonly built = new Map<number, Promise<ApiRequest>>();
	private end = 0;

	constructor(
		private readonly build: (i: number) => ApiRequest | Promise<ApiRequest>,
		private readonly count: number,
		private readonly batch: number,
	) {}

	/** Item i's request; items are taken once each, in input order, so a batch starts at the first one not built. */
	take(i: number): Promise<ApiRequest> {
		if (i >= this.end) {
			this.end = Math.min(this.count, i + this.batch);
			for (let k = i; k < this.end; k++) {
				const request = (async () => await this.build(k))();
				// Met in its item's turn; never an unhandled rejection if the run stops first.
				request.catch(() => undefined);
				this.built.set(k, request);
			}
		}
		const request = this.built.get(i)!;
		this.built.delete(i);
		return request;
	}
}

async function runOperation(
	ctx: IExecuteFunctions,
	resource: ResourceDefinition,
	operation: OperationDefinition,
	i: number,
	/** Told of the request item i builds, before it is sent. */
	built: (request: ApiRequest) => void,
	ahead: RequestsAhead | undefined,
): Promise<INodeExecutionData[]> {
	if (operation.localOutput) return await operation.localOutput.call(ctx, i);
	// There are requests to take exactly when the operation builds them (runItems).
	if (!ahead) {
		throw new NodeOperationError(ctx.getNode(), 'This operation neither builds output nor sends a request', { itemIndex: i });
	}
	// What a POST makes is named after its resource ("the task may have been created"),
	// and messages that say what happened name the operation as its action reads.
	const named = (request: ApiRequest): ApiRequest => ({ subject: resource.name.toLowerCase(), operation: operation.action, ...request });
	const request = named(await ahead.take(i));
	built(request);
	if (operation.list) {
		const returnAll = ctx.getNodeParameter('returnAll', i, false) as boolean;
		let limit: number | undefined;
		if (!returnAll) {
			// From an expression a Limit may come as text ("5"), as other numbers of the node may.
			const value = numberValue(ctx.getNodeParameter('limit', i, 50));
			if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
				throw invalid(ctx, i, 'Limit', 'must be a whole number of at least 1');
			}
			limit = value;
		}
		const filter = operation.list.filter?.call(ctx, i);
		const rows = await paginate(ctx, request, { pageSize: operation.list.pageSize, limit, filter }, sendingItem(ctx, i));
		const map = operation.list.map;
		return rows.map((row) => ({ json: map ? map(row) : row }));
	}
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
		const second = first.error instanceof NodeApiError ? operation.fallback?.call(ctx, first.error, i, request) : undefined;
		if (!second) throw asNodeError(ctx, first.error, i);
		sent = named(second);
		response = await apiRequest(ctx, sent, sending);
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
 * How many items run at a time: what the run asked for, else derived from the
 * request the operation builds: requests safe to repeat (GET, PUT, DELETE)
 * AUTO_REQUESTS_IN_PARALLEL at a time, POSTs (creates, messages) one at a time.
 */
function parallelFor(setting: number | undefined, request: ApiRequest | undefined): number {
	if (setting !== undefined) return setting;
	return request && safeToRepeat(request) ? AUTO_REQUESTS_IN_PARALLEL : 1;
}

/**
 * Runs every item, several at a time (parallelFor), and returns each item's
 * output by input index, so the output keeps the input order and pairing
 * whatever order the answers come in. When the service's API fetches a token
 * (the bot), items run one by one until one succeeds: that first success has
 * fetched the token, which the items started together afterwards share (one
 * token request per run, not one per worker). Other APIs start all workers
 * once the first request is built. Without Continue On Fail, a failure stops
 * new items from starting; those already sent finish, and the failure of the
 * lowest item index is thrown (items after it may have been sent already).
 */
async function runItems(
	ctx: IExecuteFunctions,
	resource: ResourceDefinition,
	operation: OperationDefinition,
	count: number,
	setting: number | undefined,
): Promise<INodeExecutionData[][]> {
	const continueOnFail = ctx.continueOnFail();
	const results: INodeExecutionData[][] = new Array<INodeExecutionData[]>(count);
	const failures = new Map<number, NodeApiError | NodeOperationError>();
	let next = 0;
	let succeeded = false;
	let first: ApiRequest | undefined;
	let firstBuilt: () => void = () => undefined;
	const built = (request: ApiRequest) => {
		if (first) return;
		first = request;
		if (!SERVICE_APIS[request.api].token) firstBuilt();
	};

	const build = operation.request?.bind(ctx);
	const ahead = build && new RequestsAhead(build, count, BUILT_AHEAD);
	const runOne = async (i: number): Promise<void> => {
		try {
			const outputs = simplified(ctx, operation, i, await runOperation(ctx, resource, operation, i, built, ahead));
			results[i] = outputs.map((result) => ({ ...result, pairedItem: { item: i } }));
			succeeded = true;
		} catch (error) {
			const nodeError = nodeErrorOf(ctx, error, i);
			if (!continueOnFail) {
				failures.set(i, nodeError);
				return;
			}
			const json: IDataObject = { error: nodeError.message };
			if (nodeError.description) json.description = nodeError.description;
			if (nodeError instanceof NodeApiError && nodeError.httpCode) json.httpCode = nodeError.httpCode;
			results[i] = [{ json, pairedItem: { item: i } }];
		}
	};

	const worker = async (): Promise<void> => {
		while (next < count && failures.size === 0) await runOne(next++);
	};
	// One item at a time until one succeeds, or, where no token is fetched, until the first request is built.
	const slots: Array<Promise<void>> = [];
	while (next < count && failures.size === 0 && !succeeded) {
		const ready = new Promise<void>((resolve) => (firstBuilt = resolve));
		const item = runOne(next++);
		await Promise.race([item, ready]);
		firstBuilt = () => undefined;
		if (first && !SERVICE_APIS[first.api].token) {
			// That item keeps its place: once done, it goes on as one of the workers.
			slots.push(item.then(worker));
			break;
		}
		await item;
	}
	const parallel = parallelFor(setting, first);
	const width = Math.max(0, Math.min(parallel - slots.length, count - next));
	await Promise.all([...slots, ...Array.from({ length: width }, worker)]);

	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()))!;
	return results;
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
	const setting = operation.request ? requestsInParallelSetting(ctx) : 1;

	const count = operation.waits ? Math.min(items.length, 1) : items.length;
	const output = (await runItems(ctx, found.resource, operation, count, setting)).flat();
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
