/**
 * Runs the selected operation for every input item through the transport.
 * Output items are paired to their input; with Continue On Fail each failed
 * item becomes an error item paired to the input that failed.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest, paginate } from '../transport';
import { findOperation } from './resources';
import type { OperationDefinition } from './types';
import { invalid } from './validation';

async function runOperation(
	ctx: IExecuteFunctions,
	operation: OperationDefinition,
	i: number,
): Promise<INodeExecutionData[]> {
	if (operation.build) return await operation.build.call(ctx, i);
	if (!operation.request) {
		throw new NodeOperationError(ctx.getNode(), 'This operation neither builds output nor sends a request', { itemIndex: i });
	}
	const request = await operation.request.call(ctx, i);
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
		const map = operation.list.map ?? ((row: IDataObject) => row);
		return rows.map((row) => ({ json: map(row) }));
	}
	const response = await apiRequest(ctx, request, i);
	if (operation.output) return await operation.output.call(ctx, response, i, request);
	const body = response.body;
	if (Array.isArray(body)) return (body as IDataObject[]).map((json) => ({ json }));
	return [{ json: body && typeof body === 'object' ? (body as IDataObject) : { response: body ?? null } }];
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = findOperation(resource, operationName);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}

	const output: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const results = await runOperation(this, operation, i);
			for (const result of results) output.push({ ...result, pairedItem: { item: i } });
		} catch (error) {
			let nodeError =
				error instanceof NodeApiError || error instanceof NodeOperationError
					? error
					: new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
			if (nodeError instanceof NodeApiError && operation.explainError) {
				nodeError = operation.explainError.call(this, nodeError, i) ?? nodeError;
			}
			if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = i;
			if (this.continueOnFail()) {
				const json: IDataObject = { error: nodeError.message };
				if (nodeError.description) json.description = nodeError.description;
				if (nodeError instanceof NodeApiError && nodeError.httpCode) json.httpCode = nodeError.httpCode;
				output.push({ json, pairedItem: { item: i } });
				continue;
			}
			throw nodeError;
		}
	}
	const hints = operation.hints?.call(this, output) ?? [];
	if (hints.length > 0) this.addExecutionHints(...hints);
	return [output];
}
