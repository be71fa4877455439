/**
 * The one paging reader of knowledge-base lists (`pagination[page]`,
 * `pagination[pageSize]`): Get Many reads every page it needs through it, and
 * the resource-locator lists read one page per search step.
 */
import type { IDataObject } from 'n8n-workflow';

import { apiRequest } from './door';
import { list, number, object } from './read';
import type { ApiRequest, Context } from './types';

export interface Page {
	items: IDataObject[];
	/** Whether a next page may hold more: this one was full and the metadata does not say it was the last. */
	more: boolean;
}

/**
 * Reads page `page` (1 = first). Metadata (meta.pagination, meta or pagination:
 * pageCount, total) is trusted only to end a list early, never to keep asking
 * past a short or empty page.
 */
export async function readPage(
	ctx: Context,
	request: ApiRequest,
	page: number,
	pageSize: number,
	itemIndex?: number,
): Promise<Page> {
	const response = await apiRequest(
		ctx,
		{ ...request, qs: { ...request.qs, 'pagination[page]': page, 'pagination[pageSize]': pageSize } },
		itemIndex,
	);
	const body = object(response.body) ?? {};
	const items = list(body.data);
	const received = Array.isArray(body.data) ? body.data.length : 0;
	const meta = object(body.meta);
	const pagination = object(meta?.pagination) ?? meta ?? object(body.pagination);
	const pageCount = number(pagination?.pageCount);
	const total = number(pagination?.total);
	const more =
		received >= pageSize &&
		!(pageCount !== undefined && page >= pageCount) &&
		!(total !== undefined && page * pageSize >= total);
	return { items, more };
}

export interface PageOptions {
	/** Most items to return; undefined returns all. */
	limit?: number;
	pageSize: number;
	/** Keeps only the items that match, applied while paging so Limit counts matches. */
	filter?: (item: IDataObject) => boolean;
}

/**
 * Every item of a list, page by page. Stops on the first of: enough items, the
 * last page (readPage), or a page that repeats the previous one.
 */
export async function paginate(
	ctx: Context,
	request: ApiRequest,
	options: PageOptions,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const results: IDataObject[] = [];
	let previousFirstId: unknown;
	for (let page = 1; ; page++) {
		const { items, more } = await readPage(ctx, request, page, options.pageSize, itemIndex);
		if (items.length === 0) break;
		const firstId = items[0].id;
		if (page > 1 && firstId !== undefined && firstId === previousFirstId) break;
		previousFirstId = firstId;

		for (const item of items) {
			if (options.filter && !options.filter(item)) continue;
			results.push(item);
			if (options.limit !== undefined && results.length >= options.limit) return results;
		}
		if (!more) break;
	}
	return results;
}
