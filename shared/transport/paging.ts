/**
 * The one paging reader of knowledge-base lists (`pagination[page]`,
 * `pagination[pageSize]`): Get Many reads every page it needs through it, and
 * the resource-locator lists read one page per search step. Whether a list goes
 * on is pageRules.ts's decision. A list that changes while it is read (page
 * numbers shift, so an item would be skipped or read twice) is read again from
 * its first page, up to LIST_READS times in all; a list search, which reads one
 * page per step of the editor, fails saying so. No list is read past
 * MAX_LIST_PAGES pages or MAX_LIST_ITEMS items (limits.ts): a service that
 * offers pages without end fails the read instead of filling memory. A first
 * page refused for its size is asked again smaller (pageSizeAfterRefusal), and
 * the rest of that list, and the context's later lists, are read with the size answered.
 */
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { apiRequest } from './apiRequest';
import { addToDescription, asNodeError, unexpectedAnswerError } from './errors';
import {
	afterPage,
	firstPageSize,
	listChange,
	pageSignature,
	pageSizeAfterRefusal,
	pageSizeFor,
	readPageMeta,
	type ListShape,
	type PageMeta,
	type PageSize,
} from './pageRules';
import { list, object } from './jsonValues';
import type { ApiRequest, ApiResponse, Context, SendOptions } from './types';
import { listChanged, listTooLong, pageSizesRefused, repeatedPage, operationAndItem } from './failureMessages';
import { listCapReached } from './limits';

/** Where a list stands before a page is read. */
export interface ListPosition {
	/** The page to read (1 = first). */
	page: number;
	/** Items received on the pages before it. */
	received: number;
	/** The previous page's signature, to tell a repeat. */
	previous?: string;
	/** What the first page said of the list (total, page count), to tell a change. */
	first?: ListShape;
	/** The size the list's first page was answered with; its later pages are asked with it. */
	pageSize?: PageSize;
}

/** Times a changing list is read in all before the reader gives up. */
export const LIST_READS = 3;

/** A list that changed while it was read; paginate reads it again, a list search reports it. */
export class ListChangedError extends NodeOperationError {}

/** A list that went on past MAX_LIST_PAGES or MAX_LIST_ITEMS; nothing of it is returned. */
export class ListTooLongError extends NodeOperationError {}

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
	sending: SendOptions = {},
	/** Ids read on earlier pages, when the caller keeps them; a page repeating any is a changed list. */
	earlierIds?: Set<string>,
): Promise<Page> {
	const { itemIndex } = sending;
	const cap = listCapReached(at);
	if (cap) throw new ListTooLongError(ctx.getNode(), listTooLong(operationAndItem(request.operation, itemIndex), cap), { itemIndex });
	const { response, size } = await pageAnswer(ctx, request, at, pageSize, sending);
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
		throw new NodeOperationError(ctx.getNode(), repeatedPage(operationAndItem(request.operation, itemIndex), at.page, step.repeats, items.length), {
			itemIndex,
		});
	}
	const ids = items.map((item) => item.id).filter((id) => typeof id === 'number' || typeof id === 'string').map(String);
	const overlap = earlierIds ? ids.filter((id) => earlierIds.has(id)).length : 0;
	const change = listChange(at.first, meta, overlap);
	if (change !== undefined) {
		throw new ListChangedError(ctx.getNode(), listChanged(operationAndItem(request.operation, itemIndex), at.page, change), { itemIndex });
	}
	for (const id of ids) earlierIds?.add(id);
	const first = at.first ?? (meta ? { total: meta.total, pageCount: meta.pageCount } : undefined);
	return { items, next: 'next' in step ? { page: step.next, received, previous: signature, first, pageSize: size } : undefined, meta };
}

/**
 * Per context (one node's execution, a trigger's activation, a list search), the size
 * a list's first page was answered with after a larger one was refused, so
 * the context's later lists do not meet the same refusal.
 */
const answeredAfterRefusal = new WeakMap<object, PageSize>();

/**
 * The answer to one page, and the size it was asked with: a later page keeps
 * its list's size (never above the one asked), a first page starts from
 * firstPageSize and is asked again smaller after a refusal pageSizeAfterRefusal
 * takes for one of its size. When every size is refused, the last refusal is
 * the item's error, saying which sizes were tried.
 */
async function pageAnswer(
	ctx: Context,
	request: ApiRequest,
	at: ListPosition,
	pageSize: number,
	sending: SendOptions,
): Promise<{ response: ApiResponse; size: PageSize }> {
	const kept = at.pageSize;
	let size = kept === undefined ? firstPageSize(pageSize, answeredAfterRefusal.get(ctx)) : kept === 'serviceDefault' ? kept : Math.min(kept, pageSize);
	const tried: PageSize[] = [];
	for (;;) {
		const qs = { ...request.qs, 'pagination[page]': at.page, ...(size === 'serviceDefault' ? {} : { 'pagination[pageSize]': size }) };
		tried.push(size);
		try {
			const response = await apiRequest(ctx, { ...request, qs }, sending);
			if (tried.length > 1) answeredAfterRefusal.set(ctx, size);
			return { response, size };
		} catch (error) {
			const status = error instanceof NodeApiError ? Number(error.httpCode) : NaN;
			const smaller = kept === undefined ? pageSizeAfterRefusal({ page: at.page, asked: size, status }) : undefined;
			if (smaller === undefined) {
				const failure = asNodeError(ctx, error, sending.itemIndex);
				throw tried.length > 1 ? addToDescription(failure, pageSizesRefused(tried)) : failure;
			}
			size = smaller;
		}
	}
}

/** A list position as a resource locator's pagination token, and back (a bare page number is read too). */
export function positionToken(at: ListPosition): string {
	const size = at.pageSize === undefined ? '' : at.pageSize === 'serviceDefault' ? 'default' : String(at.pageSize);
	const shape = at.first || size ? `:${at.first?.total ?? ''}:${at.first?.pageCount ?? ''}` : '';
	return `${at.page}:${at.received}:${at.previous ?? ''}${shape}${size ? `:${size}` : ''}`;
}

export function positionFromToken(token: string | undefined): ListPosition {
	const [page, received, previous, total, pageCount, size] = (token ?? '').split(':');
	const digits = (text: string | undefined) => (text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined);
	const first = digits(total) !== undefined || digits(pageCount) !== undefined ? { total: digits(total), pageCount: digits(pageCount) } : undefined;
	const sizeNumber = digits(size);
	const pageSize: PageSize | undefined = size === 'default' ? 'serviceDefault' : sizeNumber !== undefined && sizeNumber >= 1 ? sizeNumber : undefined;
	return {
		page: Math.max(1, digits(page) ?? 1),
		received: digits(received) ?? 0,
		previous: previous || undefined,
		...(first ? { first } : {}),
		...(pageSize !== undefined ? { pageSize } : {}),
	};
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

/**
 * Every item of a list (or the first `limit`), page by page, never more than
 * `limit`. A list that changes while it is read is read again from its first
 * page; after LIST_READS reads that each saw a change, the item fails saying so,
 * never returning a list that may miss items or hold some twice.
 */
export async function paginate(
	ctx: Context,
	request: ApiRequest,
	options: PageOptions,
	sending: SendOptions = {},
): Promise<IDataObject[]> {
	const { itemIndex } = sending;
	for (let read = 1; ; read++) {
		const outcome = await readWholeList(ctx, request, options, sending).then(
			(items) => ({ items }),
			(error: unknown) => ({ error }),
		);
		if ('items' in outcome) return outcome.items;
		const { error } = outcome;
		if (error instanceof ListChangedError && read < LIST_READS) continue;
		if (error instanceof ListChangedError) {
			error.message += ` (it was read ${LIST_READS} times from the first page and changed each time)`;
		}
		throw asNodeError(ctx, error, itemIndex);
	}
}

async function readWholeList(ctx: Context, request: ApiRequest, options: PageOptions, sending: SendOptions): Promise<IDataObject[]> {
	const results: IDataObject[] = [];
	const pageSize = pageSizeFor(options.limit, options.pageSize, options.filter !== undefined);
	const earlierIds = new Set<string>();
	for (let at: ListPosition | undefined = { page: 1, received: 0 }; at; ) {
		const page = await readPage(ctx, request, at, pageSize, sending, earlierIds);
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
