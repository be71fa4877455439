/**
 * What a list operation (Get Many) is, in one place: its Return All / Limit
 * parameters and how they are read, how its filter and shape apply to what is
 * listed, and the reading of its pages through the transport's paging reader
 * (shared with the Knowledge Trigger and the editor's lists). An operation
 * declares `list` and adds `returnAllOrLimit()` to its properties; the router
 * hands its request here.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { paginate, type ApiRequest } from '../../../shared/transport';
import { invalid } from '../../../shared/validation';
import { numberValue } from '../../../shared/numberValue';
import { sendingItem } from './requestSettings';

export interface ListDefinition {
	/** The largest page to ask for. */
	pageSize: number;
	/** Keeps the items that match, built from item i's parameters; applied while paging, so Limit counts matches. */
	filter?(this: IExecuteFunctions, i: number): ((item: IDataObject) => boolean) | undefined;
	/** Shapes each listed item. */
	map?(item: IDataObject): IDataObject;
}

/** Return All / Limit, the parameters of every list operation. */
export function returnAllOrLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			default: 50,
			typeOptions: { minValue: 1 },
			displayOptions: { show: { returnAll: [false] } },
			description: 'Max number of results to return',
		},
	];
}

/** How many items item i asked for: undefined for Return All, else its Limit, checked before anything is sent. */
function limitOf(ctx: IExecuteFunctions, i: number): number | undefined {
	if (ctx.getNodeParameter('returnAll', i, false) === true) return undefined;
	// From an expression a Limit may come as text ("5"), as other numbers of the node may.
	const value = numberValue(ctx.getNodeParameter('limit', i, 50));
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalid(ctx, i, 'Limit', 'must be a whole number of at least 1');
	return value;
}

/** Item i's list: its pages read until Return All or Limit is met, filtered while read, each item shaped. */
export async function listOutput(
	ctx: IExecuteFunctions,
	list: ListDefinition,
	request: ApiRequest,
	i: number,
): Promise<INodeExecutionData[]> {
	const limit = limitOf(ctx, i);
	const filter = list.filter?.call(ctx, i);
	const rows = await paginate(ctx, request, { pageSize: list.pageSize, limit, filter }, sendingItem(ctx, i));
	return rows.map((row) => ({ json: list.map ? list.map(row) : row }));
}
