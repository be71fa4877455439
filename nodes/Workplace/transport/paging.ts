/**
 * The one paging reader of knowledge-base lists (`pagination[page]`,
 * `pagination[pageSize]`): Get Many reads every page it needs through it, and
 * the resource-locator lists read one page per search step. Whether a list goes
 * on is pageRules.ts's decision.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest } from './door';
import { unexpectedAnswerError } from './errors';
import { afterPage, pageSignature, pageSizeFor, readPageMeta, type PageMeta } from './pageRules';
import { list, object } from './read';
import type { ApiRequest, Context } from './types';
import { repeatedPage, whose } from './whatHappened';

/** Where a list stands before a page is read. */
export interface ListPosition {
	/** The page to read (1 = first). */
	page: number;
	/** Items received on the pages before it. */
	received: number;
	/** The previous page's signature, to tell a repeat. */
	previous?: string;
}

export interface Page {
	items: IDataObject[];
	/** Where the list stands after this page; undefined when it is complete. */
	next?: ListPosition;
	/** The page's pagination metadata, when it had any. */
	meta?: PageMeta;
}

/**
 * Reads one page and decides whether the list goes on: metadata rules when
 * present, only an empty page ends a list without it, a page repeating the one
 * before is an error. An answer without a `data` list is an error too, not an empty page.
 */
export async function readPage(
	ctx: Context,
	request: ApiRequest,
	at: ListPosition,
	pageSize: number,
	itemIndex?: number,
): Promise<Page> {
	const qs = { ...request.qs, 'pagination[page]': at.page, 'pagination[pageSize]': pageSize };
	const response = await apiRequest(ctx, { ...request, qs }, itemIndex);
	const body = object(response.body);
	if (!body || !Array.isArray(body.data)) {
		throw unexpectedAnswerError(ctx, request, response, 'shape', `a JSON object with a "data" list (page ${at.page})`, itemIndex);
	}
	const items = list(body.data);
	const signature = pageSignature(items);
	const received = at.received + items.length;
	const meta = readPageMeta(body);
	const step = afterPage({ page: at.page, length: items.length, signature, meta, received, previous: at.previous });
	if ('repeats' in step) {
		throw new NodeOperationError(ctx.getNode(), repeatedPage(whose(request.operation, itemIndex), at.page, step.repeats, items.length), {
			itemIndex,
		});
	}
	return { items, next: 'next' in step ? { page: step.next, received, previous: signature } : undefined, meta };
}

/** A list position as a resource locator's pagination token, and back (a bare page number is read too). */
export function positionToken(at: ListPosition): string {
	return `${at.page}:${at.received}:${at.previous ?? ''}`;
}

export function positionFromToken(token: string | undefined): ListPosition {
	const [page, received, previous] = (token ?? '').split(':');
	const n = (text: string | undefined, fallback: number) => (text !== undefined && /^\d+$/.test(text) ? Number(text) : fallback);
	return { page: Math.max(1, n(page, 1)), received: n(received, 0), previous: previous || undefined };
}

export interface PageOptions {
	/** Most items to return; undefined returns all. */
	limit?: number;
	/** The largest page to ask for; Limit N asks for min(N, pageSize). */
	pageSize: number;
	/** Keeps only the items that match, applied while paging so Limit counts matches. */
	filter?: (item: IDataObject) => boolean;
	/** Told of every page as it is read, before its items are filtered (a caller checking the list whole). */
	onPage?: (page: Page) => void;
}

/** Every item of a list (or the first `limit`), page by page, never more than `limit`. */
export async function paginate(
	ctx: Context,
	request: ApiRequest,
	options: PageOptions,
	itemIndex?: number,
): Promise<IDataObject[]> {
	const results: IDataObject[] = [];
	const pageSize = pageSizeFor(options.limit, options.pageSize, options.filter !== undefined);
	for (let at: ListPosition | undefined = { page: 1, received: 0 }; at; ) {
		const page = await readPage(ctx, request, at, pageSize, itemIndex);
		options.onPage?.(page);
		const { items, next } = page;
		for (const item of items) {
			if (options.filter && !options.filter(item)) continue;
			results.push(item);
			if (options.limit !== undefined && results.length >= options.limit) return results;
		}
		at = next;
	}
	return results;
}
