/**
 * When a list goes on, decided by one pure function of what a page brought.
 * The service's largest page is not documented and may be below what is asked
 * (a cap), so a page's length never ends a list on its own:
 *   - pagination metadata, when present, rules: the list ends on the last page it names;
 *   - without metadata, only an empty page ends the list;
 *   - an empty page ends it in any case (nothing can follow it);
 *   - a page that repeats the previous one is an error, never a silent loop or cut.
 */
import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

import { object } from './jsonValues';

export interface PageMeta {
	page?: number;
	pageSize?: number;
	pageCount?: number;
	total?: number;
}

/** A whole number ≥ 0 given as a number or as digits; undefined otherwise. */
function count(value: unknown): number | undefined {
	const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
	return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The names each metadata field goes by, first found first. The documents say
 * what the metadata holds (the total, the current page, the page count, the
 * items per page) but not its names: `page`, `pageSize`, `pageCount`, `total`
 * are the names usual with `pagination[page]`; `currentPage`, `itemsPerPage`,
 * `totalPages`, `totalItems` those of NestJS's paginators (the service answers
 * errors as NestJS does); the snake_case ones Laravel's (`last_page` is its page count).
 */
const META_NAMES: Record<keyof PageMeta, readonly string[]> = {
	page: ['page', 'currentPage', 'current_page'],
	pageSize: ['pageSize', 'itemsPerPage', 'perPage', 'page_size', 'per_page'],
	pageCount: ['pageCount', 'totalPages', 'total_pages', 'lastPage', 'last_page'],
	total: ['total', 'totalItems', 'totalCount', 'total_items', 'total_count'],
};

/** The first of `names` that `holder` has as a whole number. */
function field(holder: IDataObject, names: readonly string[]): number | undefined {
	for (const name of names) {
		if (!Object.prototype.hasOwnProperty.call(holder, name)) continue;
		const value = count(holder[name]);
		if (value !== undefined) return value;
	}
	return undefined;
}

/**
 * The pagination metadata of a list answer, read tolerantly: `meta.pagination`
 * (the usual shape), `meta`, `pagination` or the answer itself, under any of
 * META_NAMES, numbers or digit strings. Undefined when it names neither a page
 * count nor a total (nothing to rule by).
 */
export function readPageMeta(body: unknown): PageMeta | undefined {
	const answer = object(body);
	const meta = object(answer?.meta);
	for (const p of [object(meta?.pagination), meta, object(answer?.pagination), answer]) {
		if (!p) continue;
		const found: PageMeta = {
			page: field(p, META_NAMES.page),
			pageSize: field(p, META_NAMES.pageSize),
			pageCount: field(p, META_NAMES.pageCount),
			total: field(p, META_NAMES.total),
		};
		if (found.pageCount !== undefined || found.total !== undefined) return found;
	}
	return undefined;
}

/** What identifies a page's content: its items' ids in order, or the items themselves when they have none. */
export function pageSignature(items: IDataObject[]): string {
	const ids = items.map((item) => item.id);
	const text = ids.every((id) => typeof id === 'number' || typeof id === 'string') ? JSON.stringify(ids) : JSON.stringify(items);
	return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export type PageStep =
	/** Read page `next`. */
	| { next: number }
	/** The list is complete. */
	| { end: 'lastPage' | 'emptyPage' }
	/** This page repeats page `previous`: the service seems to ignore the page asked for. */
	| { repeats: number };

export interface PageFacts {
	/** The page just read (1 = first). */
	page: number;
	/** How many items it held. */
	length: number;
	signature: string;
	meta: PageMeta | undefined;
	/** Items received on all pages so far, this one included (before any filter). */
	received: number;
	/** Signature of the previous page, if any. */
	previous?: string;
}

export function afterPage(facts: PageFacts): PageStep {
	const { page, length, meta } = facts;
	if (length === 0) return { end: 'emptyPage' };
	if (facts.previous !== undefined && facts.previous === facts.signature) return { repeats: page - 1 };
	if (meta?.pageCount !== undefined) return page >= meta.pageCount ? { end: 'lastPage' } : { next: page + 1 };
	if (meta?.total !== undefined) return facts.received >= meta.total ? { end: 'lastPage' } : { next: page + 1 };
	return { next: page + 1 };
}

/** What a list said of itself on the page a reader started from, to tell whether it changed since. */
export interface ListShape {
	total?: number;
	pageCount?: number;
}

/**
 * Why a list seems to have changed while it was read page by page, or undefined.
 * Page numbers shift under the reader when an item is added or deleted before
 * the page it reads: an item is then skipped or read twice. Signs of it: the
 * total or the page count the list names differs from the first page's, or a
 * page holds ids already read on an earlier page (`overlap`).
 */
export function listChange(first: ListShape | undefined, now: PageMeta | undefined, overlap: number): string | undefined {
	if (first?.total !== undefined && now?.total !== undefined && first.total !== now.total) {
		return `its total went from ${first.total} to ${now.total}`;
	}
	if (first?.pageCount !== undefined && now?.pageCount !== undefined && first.pageCount !== now.pageCount) {
		return `its page count went from ${first.pageCount} to ${now.pageCount}`;
	}
	if (overlap > 0) return `${overlap} item${overlap === 1 ? '' : 's'} came again on a later page`;
	return undefined;
}

/**
 * The page size to ask for: Limit N asks for min(N, page size); Return All, and a
 * list filtered here (where Limit counts matches, so N items may not be enough), the whole page size.
 */
export function pageSizeFor(limit: number | undefined, pageSize: number, filtered = false): number {
	return limit === undefined || filtered ? pageSize : Math.max(1, Math.min(limit, pageSize));
}

/** The size a list's pages are asked with: a number of items, or none sent (`serviceDefault`: the service's own size). */
export type PageSize = number | 'serviceDefault';

/** The sizes a refused first page is asked with in turn, largest first, before no size at all. */
export const SMALLER_PAGE_SIZES = [50, 20] as const;

/** What the service answered to a list's page: which page, the size asked, the status refusing it. */
export interface PageRefusal {
	page: number;
	asked: PageSize;
	status: number;
}

/**
 * The size to ask a refused first page with, or undefined: the refusal stands.
 * The service's largest page size is not documented, and a strict service
 * refuses a larger one (400 or 422) rather than serving fewer items. A list
 * request carries nothing else it could refuse that way, so a 400 or 422 to a
 * first page is asked again with the next smaller size, then with none (the
 * service's own size, which it must take). A later page was asked with the
 * size the first was answered with: its refusal is about something else.
 */
export function pageSizeAfterRefusal(refusal: PageRefusal): PageSize | undefined {
	const { page, asked, status } = refusal;
	if (page !== 1 || (status !== 400 && status !== 422) || asked === 'serviceDefault') return undefined;
	return SMALLER_PAGE_SIZES.find((size) => size < asked) ?? 'serviceDefault';
}

/**
 * The size to ask a first page with: the size wanted, or, once a larger size
 * was refused in this context (paging.ts), the size the service then answered, when it is smaller.
 */
export function firstPageSize(wanted: number, answeredAfterRefusal: PageSize | undefined): PageSize {
	if (answeredAfterRefusal === undefined) return wanted;
	if (answeredAfterRefusal === 'serviceDefault') return answeredAfterRefusal;
	return Math.min(wanted, answeredAfterRefusal);
}
