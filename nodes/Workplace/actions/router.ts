/**
 * Runs the selected operation for every input item through the transport,
 * one by one or several at a time ("Requests in Parallel"). Output items keep
 * the input order and are paired to their input; with Continue On Fail each
 * failed item becomes an error item paired to the input that failed.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, MAX_REQUESTS_IN_PARALLEL, paginate, read, REQUESTS_IN_PARALLEL } from '../transport';
import { findOperation } from './resources';
import type { OperationDefinition, ResourceDefinition } from './types';
import { invalid } from './validation';

async function runOperation(
	ctx: IExecuteFunctions,
	resource: ResourceDefinition,
	operation: OperationDefinition,
	i: number,
): Promise<INodeExecutionData[]> {
	if (operation.build) return await operation.build.call(ctx, i);
	if (!operation.request) {
		throw new NodeOperationError(ctx.getNode(), 'This operation neither builds output nor sends a request', { itemIndex: i });
	}
	// What a POST makes is named after its resource ("the task may have been created"),
	// and messages that say what happened name the operation as its action reads.
	const request = { subject: resource.name.toLowerCase(), operation: operation.action, ...(await operation.request.call(ctx, i)) };
	if (operation.list) {
		const returnAll = ctx.getNodeParameter('returnAll', i, false) as boolean;
		let limit: number | undefined;
		if (!returnAll) {
			limit = ctx.getNodeParameter('limit', i, 50) as number;
			if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
				throw invalid(ctx, i, 'Limit', 'must be a whole number of at least 1');
			}
		}
		const filter = operation.list.filter?.call(ctx, i);
		const rows = await paginate(ctx, request, { pageSize: operation.list.pageSize, limit, filter }, i);
		const map = operation.list.map;
		return rows.map((row) => ({ json: map ? map(row) : row }));
	}
	const response = await apiRequest(ctx, request, i);
	if (operation.output) return await operation.output.call(ctx, response, i, request);
	const body = response.body;
	if (Array.isArray(body)) return read.list(body).map((json) => ({ json }));
	return [{ json: read.object(body) ?? { response: body ?? null } }];
}

/** "Requests in Parallel", read once per run (item 0) and checked before anything is sent. */
function requestsInParallel(ctx: IExecuteFunctions): number {
	const value = ctx.getNodeParameter(REQUESTS_IN_PARALLEL, 0, 1) as unknown;
	const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_REQUESTS_IN_PARALLEL) {
		throw invalid(ctx, 0, 'Requests in Parallel', `must be a whole number from 1 to ${MAX_REQUESTS_IN_PARALLEL} (got ${JSON.stringify(value)})`);
	}
	return n;
}

/** Any failure of item i as the node error n8n shows, in the operation's terms. */
function nodeErrorOf(
	ctx: IExecuteFunctions,
	operation: OperationDefinition,
	error: unknown,
	i: number,
): NodeApiError | NodeOperationError {
	let nodeError =
		error instanceof NodeApiError || error instanceof NodeOperationError
			? error
			: new NodeOperationError(ctx.getNode(), error as Error, { itemIndex: i });
	if (nodeError instanceof NodeApiError && operation.explainError) {
		nodeError = operation.explainError.call(ctx, nodeError, i) ?? nodeError;
	}
	if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = i;
	return nodeError;
}

/**
 * Runs every item, up to `parallel` at a time, and returns each item's output by
 * input index, so the output keeps the input order and pairing whatever order
 * the answers come in. Items run one by one until one succeeds: that first
 * success has read the credential and fetched any token, so the items started
 * together afterwards share them (one token request per run, not one per worker).
 * Without Continue On Fail, a failure stops new items from starting; those
 * already sent finish, and the failure of the lowest item index is thrown
 * (items after it may have been sent already).
 */
async function runItems(
	ctx: IExecuteFunctions,
	resource: ResourceDefinition,
	operation: OperationDefinition,
	count: number,
	parallel: number,
): Promise<INodeExecutionData[][]> {
	const continueOnFail = ctx.continueOnFail();
	const results: INodeExecutionData[][] = new Array<INodeExecutionData[]>(count);
	const failures = new Map<number, NodeApiError | NodeOperationError>();
	let next = 0;
	let succeeded = false;

	const runOne = async (i: number): Promise<void> => {
		try {
			const outputs = await runOperation(ctx, resource, operation, i);
			results[i] = outputs.map((result) => ({ ...result, pairedItem: { item: i } }));
			succeeded = true;
		} catch (error) {
			const nodeError = nodeErrorOf(ctx, operation, error, i);
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

	while (next < count && failures.size === 0 && (parallel === 1 || !succeeded)) await runOne(next++);
	const worker = async (): Promise<void> => {
		while (next < count && failures.size === 0) await runOne(next++);
	};
	await Promise.all(Array.from({ length: Math.min(parallel, count - next) }, worker));

	if (failures.size > 0) throw failures.get(Math.min(...failures.keys()))!;
	return results;
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const found = findOperation(resource, operationName);
	if (!found) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}
	const { operation } = found;
	const parallel = operation.request ? requestsInParallel(this) : 1;

	const output = (await runItems(this, found.resource, operation, items.length, parallel)).flat();
	const hints = operation.hints?.call(this, output) ?? [];
	if (hints.length > 0) this.addExecutionHints(...hints);
	return [output];
}
