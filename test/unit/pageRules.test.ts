/**
 * The paging decision (transport/pageRules.ts) as a table: metadata rules when
 * present, only an empty page ends a list without it, a repeated page is named;
 * a first page refused for its size is asked again smaller, then with none.
 */
import {
	afterPage,
	firstPageSize,
	pageSignature,
	pageSizeAfterRefusal,
	pageSizeFor,
	readPageMeta,
	type PageFacts,
	type PageRefusal,
	type PageSize,
} from '../../shared/transport/pageRules';

const items = (...ids: number[]) => ids.map((id) => ({ id }));
const facts = (over: Partial<PageFacts>): PageFacts => ({ page: 1, length: 10, signature: 's1', meta: undefined, received: 10, ...over });

describe('readPageMeta', () => {
	it.each([
		['meta.pagination', { meta: { pagination: { page: 1, pageSize: 10, pageCount: 3, total: 23 } } }, { page: 1, pageSize: 10, pageCount: 3, total: 23 }],
		['meta itself', { meta: { page: 2, pageCount: 3 } }, { page: 2, pageSize: undefined, pageCount: 3, total: undefined }],
		['top-level pagination', { pagination: { total: 23 } }, { page: undefined, pageSize: undefined, pageCount: undefined, total: 23 }],
		['digit strings', { meta: { pagination: { pageCount: '3', total: ' 23 ' } } }, { page: undefined, pageSize: undefined, pageCount: 3, total: 23 }],
		[
			'NestJS paginator names in meta',
			{ meta: { totalItems: 23, itemCount: 10, itemsPerPage: 10, totalPages: 3, currentPage: 1 } },
			{ page: 1, pageSize: 10, pageCount: 3, total: 23 },
		],
		[
			'Laravel names on the answer itself (last_page is the page count)',
			{ data: [], current_page: 2, per_page: 15, last_page: 4, total: 50 },
			{ page: 2, pageSize: 15, pageCount: 4, total: 50 },
		],
		['totalCount alone', { meta: { totalCount: 7 } }, { page: undefined, pageSize: undefined, pageCount: undefined, total: 7 }],
		['the usual name first when both are there', { meta: { pageCount: 3, totalPages: 9 } }, { page: undefined, pageSize: undefined, pageCount: 3, total: undefined }],
		['a name holding nonsense gives way to the next', { meta: { total: 'many', totalItems: 23 } }, { page: undefined, pageSize: undefined, pageCount: undefined, total: 23 }],
		['meta.pagination before the answer itself', { total: 99, meta: { pagination: { total: 23 } } }, { page: undefined, pageSize: undefined, pageCount: undefined, total: 23 }],
	])('reads %s', (_label, body, expected) => {
		expect(readPageMeta(body)).toEqual(expected);
	});

	it.each([
		['no meta', { data: [] }],
		['meta without count or total', { meta: { pagination: { page: 1, pageSize: 10 } } }],
		['nonsense values', { meta: { pagination: { pageCount: -1, total: 'many' } } }],
		['not an object', 'text'],
		['itemCount is this page’s count, not a total', { meta: { itemCount: 10, currentPage: 1 } }],
		['names only on the prototype', { meta: Object.create({ total: 5 }) as object }],
	])('is undefined for %s', (_label, body) => {
		expect(readPageMeta(body)).toBeUndefined();
	});
});

describe('afterPage', () => {
	it.each<[string, Partial<PageFacts>, ReturnType<typeof afterPage>]>([
		['an empty page ends the list, metadata or not', { length: 0, meta: { pageCount: 9 } }, { end: 'emptyPage' }],
		['without metadata a short page goes on', { length: 3 }, { next: 2 }],
		['without metadata a full page goes on', { length: 10 }, { next: 2 }],
		['metadata: not yet the last page, however short', { page: 1, length: 4, meta: { pageCount: 3 } }, { next: 2 }],
		['metadata: the last page it names ends it', { page: 3, length: 3, meta: { pageCount: 3 } }, { end: 'lastPage' }],
		['metadata: past the last page ends it', { page: 4, length: 3, meta: { pageCount: 3 } }, { end: 'lastPage' }],
		['total only: received fewer goes on', { page: 2, received: 20, meta: { total: 23 } }, { next: 3 }],
		['total only: received all ends it', { page: 3, length: 3, received: 23, meta: { total: 23 } }, { end: 'lastPage' }],
		['a page like the one before is a repeat', { page: 2, signature: 'same', previous: 'same' }, { repeats: 1 }],
		['a repeat is found even when metadata says more', { page: 2, signature: 'same', previous: 'same', meta: { pageCount: 5 } }, { repeats: 1 }],
	])('%s', (_label, over, expected) => {
		expect(afterPage(facts(over))).toEqual(expected);
	});
});

describe('pageSignature and pageSizeFor', () => {
	it('tells pages apart by their ids, in order', () => {
		expect(pageSignature(items(1, 2, 3))).toBe(pageSignature(items(1, 2, 3)));
		expect(pageSignature(items(1, 2, 3))).not.toBe(pageSignature(items(3, 2, 1)));
		expect(pageSignature([{ name: 'a' }])).not.toBe(pageSignature([{ name: 'b' }]));
	});

	it.each([
		[undefined, 100, 100],
		[1, 100, 1],
		[5, 100, 5],
		[150, 100, 100],
	])('Limit %s with page size %i asks for %i', (limit, pageSize, expected) => {
		expect(pageSizeFor(limit, pageSize)).toBe(expected);
	});

	it('asks for whole pages when a filter here decides what Limit counts', () => {
		expect(pageSizeFor(5, 100, true)).toBe(100);
	});
});

describe('pageSizeAfterRefusal', () => {
	it.each<[string, PageRefusal, PageSize | undefined]>([
		['422 to a first page of 100: 50', { page: 1, asked: 100, status: 422 }, 50],
		['400 to a first page of 100: 50', { page: 1, asked: 100, status: 400 }, 50],
		['then 20', { page: 1, asked: 50, status: 422 }, 20],
		['then no size, the service’s own', { page: 1, asked: 20, status: 422 }, 'serviceDefault'],
		['a refused Limit of 30 asks 20', { page: 1, asked: 30, status: 422 }, 20],
		['a refused Limit of 5 asks no size', { page: 1, asked: 5, status: 400 }, 'serviceDefault'],
		['no size refused too: the refusal stands', { page: 1, asked: 'serviceDefault', status: 422 }, undefined],
		['a later page: its size was answered before, so the refusal stands', { page: 2, asked: 50, status: 422 }, undefined],
		['404 is no refusal of the size', { page: 1, asked: 100, status: 404 }, undefined],
		['401, 403 neither', { page: 1, asked: 100, status: 403 }, undefined],
		['nor 429 (the request path waits it out)', { page: 1, asked: 100, status: 429 }, undefined],
		['nor a 5xx', { page: 1, asked: 100, status: 500 }, undefined],
		['nor a failure without a status', { page: 1, asked: 100, status: NaN }, undefined],
	])('%s', (_label, refusal, expected) => {
		expect(pageSizeAfterRefusal(refusal)).toEqual(expected);
	});
});

describe('firstPageSize', () => {
	it.each<[number, PageSize | undefined, PageSize]>([
		[100, undefined, 100],
		[5, undefined, 5],
		[100, 20, 20],
		[5, 20, 5],
		[100, 'serviceDefault', 'serviceDefault'],
		[5, 'serviceDefault', 'serviceDefault'],
	])('wanting %s after %s was answered asks %s', (wanted, answered, expected) => {
		expect(firstPageSize(wanted, answered)).toEqual(expected);
	});
});
