/**
 * Paging under a service page cap, in n8n-core's real engine against the
 * emulator: Get Many (Return All and Limit) and the resource locators' list
 * searches, for knowledge bases and knowledge files, under caps 1, 7, 10 and
 * none, with pagination metadata (under its usual names and NestJS's) and
 * without. Every id must arrive exactly once, never more than Limit, with the
 * request count the rules allow:
 *   - the size asked is min(Limit, 100) (100 for Return All);
 *   - with metadata the list ends on the last page it names: ceil(n / served) requests;
 *   - without metadata only an empty page ends it: one request more, unless Limit was reached first.
 * And under a service whose largest page size is below the one asked, which
 * refuses a larger one: the first page is asked again smaller, then with none.
 */
import type { INodeParameters } from 'n8n-workflow';

import { suiteTestbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';
import { figure } from '../figures';

const bed = suiteTestbed();

afterAll(async () => {
	// The matrix's request counts, for the record.
	figure(`paging matrix (${table.length} runs):\n${table.join('\n')}`);
});

const TOTAL = 23;
/** Base 3 has no seeded files; the matrix gives it TOTAL. */
const FILES_BASE = 3;
const LIST_PAGE = 100;
const table: string[] = [];

let baseIds: number[];
let fileIds: number[];

beforeEach(() => {
	bed.emulator.knowledge.addKnowledgeBases(TOTAL - bed.emulator.knowledge.bases.size);
	bed.emulator.knowledge.addFiles(FILES_BASE, TOTAL);
	baseIds = bed.emulator.knowledge.listBases().map((b) => b.id);
	fileIds = bed.emulator.knowledge.filesOf(FILES_BASE).map((f) => f.id);
	expect(baseIds).toHaveLength(TOTAL);
	expect(fileIds).toHaveLength(TOTAL);
});


type Resource = 'knowledge bases' | 'knowledge files';
type Mode = 'strapi' | 'nestjs' | 'none';

const RESOURCES: Record<Resource, { path: string; parameters: INodeParameters; ids: () => number[]; search: string; searchPath?: string }> = {
	'knowledge bases': {
		path: '/api/v1/knowledge',
		parameters: { resource: 'knowledgeBase', operation: 'getAll' },
		ids: () => baseIds,
		search: 'searchKnowledgeBases',
	},
	'knowledge files': {
		path: `/api/v1/knowledge/${FILES_BASE}/files`,
		parameters: { resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(FILES_BASE), filters: {} },
		ids: () => fileIds,
		search: 'searchKnowledgeFiles',
		searchPath: 'parameters.fileId',
	},
};

const CAPS = [1, 7, 10, null] as const;
const MODES: Mode[] = ['strapi', 'nestjs', 'none'];
/** undefined = Return All. */
const LIMITS = [undefined, 1, 5, 23, 24] as const;

/** The list requests the emulator saw, as page/pageSize (undefined when no size was sent). */
const listRequests = (path: string) =>
	bed.emulator.log
		.filter((e) => e.method === 'GET' && e.path === path)
		.map((e) => {
			const size = e.query['pagination[pageSize]'];
			return { page: Number(e.query['pagination[page]']), pageSize: size === undefined ? undefined : Number(size), status: e.status };
		});

/** Requests the rules allow: ceil(wanted / served) with metadata; without, one more for the empty page unless Limit was reached. */
function expectedRequests(asked: number, cap: number | null, mode: Mode, limit: number | undefined): number {
	const served = cap === null ? asked : Math.min(asked, cap);
	const wanted = Math.min(limit ?? TOTAL, TOTAL);
	const pages = Math.ceil(wanted / served);
	const limitReached = limit !== undefined && limit <= TOTAL;
	return mode === 'none' && !limitReached ? pages + 1 : pages;
}

const label = (cap: number | null) => (cap === null ? 'no cap' : `cap ${cap}`);
const modeLabel = (mode: Mode) => ({ strapi: 'with metadata', nestjs: 'with NestJS-named metadata', none: 'without metadata' })[mode];

const GET_MANY = (Object.keys(RESOURCES) as Resource[]).flatMap((resource) =>
	CAPS.flatMap((cap) =>
		MODES.flatMap((mode) =>
			LIMITS.map((limit) => [resource, label(cap), modeLabel(mode), limit === undefined ? 'Return All' : `Limit ${limit}`, { resource, cap, mode, limit }] as const),
		),
	),
);

describe('Get Many under a page cap', () => {
	it.each(GET_MANY)('%s, %s, %s, %s: every id once, never more than Limit, ceil(n / served) requests', async (...args) => {
		const { resource, cap, mode, limit } = args[4];
		const r = RESOURCES[resource];
		bed.emulator.setConfig({ pageCap: cap, paginationMode: mode });
		const parameters: INodeParameters = { ...r.parameters, returnAll: limit === undefined, ...(limit === undefined ? {} : { limit }) };
		const run = await bed.runNode(parameters);
		expect(run.error).toBeUndefined();

		const ids = run.json.map((item) => item.id as number);
		const wanted = r.ids().slice(0, Math.min(limit ?? TOTAL, TOTAL));
		expect(ids).toEqual(wanted);
		expect(new Set(ids).size).toBe(ids.length);
		if (limit !== undefined) expect(ids.length).toBeLessThanOrEqual(limit);

		const asked = Math.min(limit ?? LIST_PAGE, LIST_PAGE);
		const sent = listRequests(r.path);
		expect(sent.map((s) => s.page)).toEqual(sent.map((_, n) => n + 1));
		// Limit N asks for min(N, page size), and never more than that afterwards.
		expect(sent[0].pageSize).toBe(asked);
		for (const s of sent) expect(s.pageSize).toBeLessThanOrEqual(asked);
		const expected = expectedRequests(asked, cap, mode, limit);
		table.push(`  ${args.slice(0, 4).join(', ')}: ${sent.length} requests (expected ${expected})`);
		expect(sent).toHaveLength(expected);
	});
});

const SEARCHES = (Object.keys(RESOURCES) as Resource[]).flatMap((resource) =>
	CAPS.flatMap((cap) => MODES.map((mode) => [resource, label(cap), modeLabel(mode), { resource, cap, mode }] as const)),
);

describe('list searches (resource locators) under a page cap', () => {
	it.each(SEARCHES)('%s, %s, %s: following the tokens lists every id once', async (...args) => {
		const { resource, cap, mode } = args[3];
		const r = RESOURCES[resource];
		bed.emulator.setConfig({ pageCap: cap, paginationMode: mode });
		const parameters: INodeParameters = { ...r.parameters, operation: 'get' };
		const ids: number[] = [];
		let token: string | undefined;
		let calls = 0;
		do {
			const result = await bed.listSearch(r.search, parameters, undefined, token, r.searchPath);
			ids.push(...result.results.map((entry) => Number(entry.value)));
			token = typeof result.paginationToken === 'string' ? result.paginationToken : undefined;
			calls++;
		} while (token !== undefined && calls <= 2 * TOTAL + 2);
		expect(ids).toEqual(r.ids());

		const sent = listRequests(r.path);
		const expected = expectedRequests(LIST_PAGE, cap, mode, undefined);
		table.push(`  list search, ${args.slice(0, 3).join(', ')}: ${sent.length} requests in ${calls} calls (expected ${expected})`);
		expect(sent).toHaveLength(expected);
	});
});

describe('paging rules beyond the cap', () => {
	const getMany = (p: INodeParameters = {}): INodeParameters => ({ resource: 'knowledgeBase', operation: 'getAll', returnAll: true, ...p });
	const page = (ids: number[], meta?: object) => ({ data: ids.map((id) => ({ id, name: `Base ${id}` })), ...(meta ? { meta: { pagination: meta } } : {}) });

	it.each(['strapi', 'none'] as const)('a page that repeats the previous one stops with an error that says so (%s)', async (mode) => {
		bed.emulator.setConfig({ pageCap: 10, paginationMode: mode });
		// A service that ignores pagination[page] answers page 1 again.
		const first = page(baseIds.slice(0, 10), mode === 'strapi' ? { page: 1, pageSize: 10, pageCount: 3, total: 23 } : undefined);
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', skip: 1, action: { kind: 'status', status: 200, body: first } });
		const run = await bed.runNode(getMany(), { continueOnFail: true });
		expect(run.json).toHaveLength(1);
		expect(run.json[0].error).toBe(
			'Get many knowledge bases (item 0): page 2 repeats page 1 (the same 10 items), as if the service ignored the page asked for; the node stopped instead of reading the same items again',
		);
		expect(listRequests('/api/v1/knowledge')).toHaveLength(2);
	});

	it('with metadata, a page shorter than the page size does not end the list before the last page it names', async () => {
		bed.emulator.setConfig({ pageCap: 10 });
		bed.emulator.faults.add({
			method: 'GET',
			path: '/api/v1/knowledge',
			action: { kind: 'status', status: 200, body: page(baseIds.slice(0, 4), { page: 1, pageSize: 10, pageCount: 3, total: 23 }) },
		});
		const run = await bed.runNode(getMany());
		expect(run.error).toBeUndefined();
		expect(run.json.map((kb) => kb.id)).toEqual([...baseIds.slice(0, 4), ...baseIds.slice(10)]);
		expect(listRequests('/api/v1/knowledge').map((r) => r.page)).toEqual([1, 2, 3]);
	});

	it('metadata under Laravel’s names on the answer itself (last_page, total) ends the list on its last page', async () => {
		bed.emulator.setConfig({ pageCap: 10, paginationMode: 'none' });
		const laravel = (ids: number[], currentPage: number) => ({ data: ids.map((id) => ({ id, name: `Base ${id}` })), current_page: currentPage, per_page: 10, last_page: 2, total: 13 });
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', action: { kind: 'status', status: 200, body: laravel(baseIds.slice(0, 10), 1) } });
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', skip: 1, action: { kind: 'status', status: 200, body: laravel(baseIds.slice(10, 13), 2) } });
		const run = await bed.runNode(getMany());
		expect(run.error).toBeUndefined();
		// Read as no metadata, the list would go on to the emulator's own page 3.
		expect(run.json.map((kb) => kb.id)).toEqual(baseIds.slice(0, 13));
		expect(listRequests('/api/v1/knowledge').map((r) => r.page)).toEqual([1, 2]);
	});

	it('an answer without a data list is not an empty list: it fails, saying what was expected', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', skip: 1, action: { kind: 'status', status: 200, body: { items: [] } } });
		bed.emulator.setConfig({ pageCap: 10 });
		const run = await bed.runNode(getMany(), { continueOnFail: true });
		expect(run.json[0].error).toBe(
			'Get many knowledge bases (item 0): the service answered 200 (application/json; charset=utf-8) with JSON of another shape, where a JSON object with a "data" list (page 2) was expected; it was a read, so nothing was changed',
		);
	});

	it('the list search stops with the same error on a repeated page', async () => {
		bed.emulator.setConfig({ pageCap: 10, paginationMode: 'none' });
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', skip: 1, action: { kind: 'status', status: 200, body: page(baseIds.slice(0, 10)) } });
		const first = await bed.listSearch('searchKnowledgeBases', { resource: 'knowledgeBase', operation: 'get' });
		await expect(bed.listSearch('searchKnowledgeBases', { resource: 'knowledgeBase', operation: 'get' }, undefined, first.paginationToken as string)).rejects.toThrow(
			/^Search knowledge bases: page 2 repeats page 1/,
		);
	});
});

describe('a list that changes while it is read (issue 23, item 8)', () => {
	const getMany = (p: INodeParameters = {}): INodeParameters => ({ resource: 'knowledgeBase', operation: 'getAll', returnAll: true, ...p });
	const deleteAfterServing = (id: () => number, times = 1) =>
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', times, action: { kind: 'sideEffect', run: () => bed.emulator.knowledge.deleteBase(id()) } });

	it('Get Many: a base deleted after page 1 shifts the pages; the total changes, the list is read again, every remaining id once', async () => {
		bed.emulator.setConfig({ pageCap: 10 });
		const gone = baseIds[2];
		deleteAfterServing(() => gone);
		const run = await bed.runNode(getMany());
		expect(run.error).toBeUndefined();
		expect(run.json.map((kb) => kb.id)).toEqual(baseIds.filter((id) => id !== gone));
		expect(listRequests('/api/v1/knowledge').map((r) => r.page)).toEqual([1, 2, 1, 2, 3]);
	});

	it('Get Many without metadata: a page repeating ids of an earlier page is read again from page 1', async () => {
		bed.emulator.setConfig({ pageCap: 10, paginationMode: 'none' });
		const shifted = { data: baseIds.slice(9, 19).map((id) => ({ id, name: `Base ${id}` })) };
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', skip: 1, action: { kind: 'status', status: 200, body: shifted } });
		const run = await bed.runNode(getMany());
		expect(run.error).toBeUndefined();
		expect(run.json.map((kb) => kb.id)).toEqual(baseIds);
		expect(listRequests('/api/v1/knowledge').map((r) => r.page)).toEqual([1, 2, 1, 2, 3, 4]);
	});

	it('Get Many: a list that keeps changing fails clearly after 3 reads, never returning what it read', async () => {
		bed.emulator.setConfig({ pageCap: 10 });
		deleteAfterServing(() => bed.emulator.knowledge.listBases().at(-1)!.id, Infinity);
		const run = await bed.runNode(getMany(), { continueOnFail: true });
		expect(run.json).toHaveLength(1);
		expect(run.json[0].error).toMatch(
			/^Get many knowledge bases \(item 0\): the list changed while it was read \(on page 2, its total went from \d+ to \d+\);.* \(it was read 3 times from the first page and changed each time\)$/,
		);
		bed.emulator.faults.clear();
	});

	it('the list search: a base deleted between two steps fails saying the list changed, instead of skipping one', async () => {
		bed.emulator.setConfig({ pageCap: 10 });
		const parameters: INodeParameters = { resource: 'knowledgeBase', operation: 'get' };
		const first = await bed.listSearch('searchKnowledgeBases', parameters);
		bed.emulator.knowledge.deleteBase(baseIds[0]);
		await expect(bed.listSearch('searchKnowledgeBases', parameters, undefined, first.paginationToken as string)).rejects.toThrow(
			/^Search knowledge bases: the list changed while it was read \(on page 2, its total went from 23 to 22\)/,
		);
	});
});


describe('a service whose largest page is below the size asked (it refuses a larger one)', () => {
	/** The first page's sizes the node asks in turn (none = the service's own), and the emulator's default. */
	const STEPS = [100, 50, 20, undefined];
	const DEFAULT_PAGE_SIZE = 25;
	/** Requests the node sends against largest page `max`: the refused sizes, then ceil(wanted / served) pages with the size answered. */
	function expectedSizes(max: number, asked: number, limit: number | undefined): Array<number | undefined> {
		const steps = [asked, ...STEPS.filter((size) => size === undefined || size < asked)];
		const refused = steps.slice(0, steps.findIndex((size) => size === undefined || size <= max));
		const accepted = steps[refused.length];
		const served = accepted ?? Math.min(DEFAULT_PAGE_SIZE, max);
		const pages = Math.ceil(Math.min(limit ?? TOTAL, TOTAL) / served);
		return [...refused, ...Array.from({ length: pages }, () => accepted)];
	}

	const CASES = (Object.keys(RESOURCES) as Resource[]).flatMap((resource) =>
		(
			[
				[50, undefined],
				[30, undefined],
				[20, undefined],
				[10, undefined],
				[10, 15],
				[3, 5],
			] as const
		).map(([max, limit]) => [resource, max, limit === undefined ? 'Return All' : `Limit ${limit}`, { resource, max, limit }] as const),
	);

	it.each(CASES)('%s, largest page %i, %s: the refused sizes once, then every id once', async (...args) => {
		const { resource, max, limit } = args[3];
		const r = RESOURCES[resource];
		bed.emulator.setConfig({ maxPageSize: max });
		const run = await bed.runNode({ ...r.parameters, returnAll: limit === undefined, ...(limit === undefined ? {} : { limit }) });
		expect(run.error).toBeUndefined();
		expect(run.json.map((item) => item.id)).toEqual(r.ids().slice(0, limit ?? TOTAL));

		const sent = listRequests(r.path);
		const sizes = expectedSizes(max, Math.min(limit ?? LIST_PAGE, LIST_PAGE), limit);
		table.push(`  largest page ${max}, ${args.slice(0, 1).concat(args.slice(2, 3)).join(', ')}: sizes ${sent.map((s) => s.pageSize ?? 'none').join(' ')}`);
		expect(sent.map((s) => s.pageSize)).toEqual(sizes);
		const refusals = sizes.findIndex((size) => size === sizes.at(-1));
		expect(sent.map((s) => s.status)).toEqual(sizes.map((_, n) => (n < refusals ? 422 : 200)));
		expect(sent.map((s) => s.page)).toEqual(sizes.map((_, n) => (n < refusals ? 1 : n - refusals + 1)));
	});

	it('the items after the first ask the size the service answered, without meeting the refusal again', async () => {
		bed.emulator.setConfig({ maxPageSize: 30 });
		const parameters: INodeParameters = { ...RESOURCES['knowledge bases'].parameters, returnAll: true, options: { batching: { batch: { requestsInParallel: 1 } } } };
		const run = await bed.runNode(parameters, { items: [{ json: {} }, { json: {} }, { json: {} }] });
		expect(run.error).toBeUndefined();
		expect(run.json.map((item) => item.id)).toEqual([...baseIds, ...baseIds, ...baseIds]);
		expect(listRequests('/api/v1/knowledge').map((s) => `${s.page}/${s.pageSize}/${s.status}`)).toEqual([
			'1/100/422',
			'1/50/422',
			'1/20/200',
			'2/20/200',
			...['1/20/200', '2/20/200'],
			...['1/20/200', '2/20/200'],
		]);
	});

	it('a list search carries the size answered in its token: the next step asks it directly', async () => {
		bed.emulator.setConfig({ maxPageSize: 10 });
		const r = RESOURCES['knowledge files'];
		const parameters: INodeParameters = { ...r.parameters, operation: 'get' };
		const first = await bed.listSearch(r.search, parameters, undefined, undefined, r.searchPath);
		const token = first.paginationToken as string;
		expect(token).toMatch(/:default$/);
		const second = await bed.listSearch(r.search, parameters, undefined, token, r.searchPath);
		const third = await bed.listSearch(r.search, parameters, undefined, second.paginationToken as string, r.searchPath);
		expect(third.paginationToken).toBeUndefined();
		expect([first, second, third].flatMap((step) => step.results.map((entry) => Number(entry.value)))).toEqual(r.ids());
		expect(listRequests(r.path).map((s) => `${s.page}/${s.pageSize ?? 'none'}/${s.status}`)).toEqual(['1/100/422', '1/50/422', '1/20/422', '1/none/200', '2/none/200', '3/none/200']);

		// A token is text the editor hands back: a size in it never raises the size asked.
		bed.emulator.clearLog();
		bed.emulator.setConfig({ maxPageSize: 100 });
		await bed.listSearch(r.search, parameters, undefined, '2:0::::500', r.searchPath);
		expect(listRequests(r.path).map((s) => `${s.page}/${s.pageSize}`)).toEqual(['2/100']);
	});

	it('a 400 to the first page is a refusal of its size too', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', action: { kind: 'status', status: 400, body: { message: 'pageSize too large' } } });
		const run = await bed.runNode({ ...RESOURCES['knowledge bases'].parameters, returnAll: true });
		expect(run.error).toBeUndefined();
		expect(run.json.map((item) => item.id)).toEqual(baseIds);
		expect(listRequests('/api/v1/knowledge').map((s) => `${s.pageSize}/${s.status}`)).toEqual(['100/400', '50/200']);
	});

	it('when every size is refused, the item fails with the service’s message, saying which sizes were asked', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', times: Infinity, action: { kind: 'status', status: 400, body: { message: 'Bad filter' } } });
		const run = await bed.runNode({ ...RESOURCES['knowledge bases'].parameters, returnAll: true });
		expect(run.error?.message).toMatch(/Bad filter/);
		expect(run.error?.description).toContain(
			'The first page was asked for with 100 items a page, then 50 items a page, then 20 items a page, then no size (the service’s own); the service refused each.',
		);
		expect(listRequests('/api/v1/knowledge').map((s) => s.pageSize)).toEqual([100, 50, 20, undefined]);
		bed.emulator.faults.clear();
	});

	it('a refusal of a later page, or a first page answered 404, is not asked again with another size', async () => {
		bed.emulator.setConfig({ pageCap: 10 });
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge', skip: 1, action: { kind: 'status', status: 422, body: { message: 'page too far' } } });
		const later = await bed.runNode({ ...RESOURCES['knowledge bases'].parameters, returnAll: true }, { continueOnFail: true });
		expect(later.json[0].error).toMatch(/page too far/);
		expect(listRequests('/api/v1/knowledge').map((s) => `${s.page}/${s.pageSize}`)).toEqual(['1/100', '2/100']);

		const files = RESOURCES['knowledge files'];
		bed.emulator.knowledge.deleteBase(FILES_BASE);
		const missing = await bed.runNode({ ...files.parameters, returnAll: true }, { continueOnFail: true });
		expect(missing.json[0].error).toBeDefined();
		expect(listRequests(files.path).map((s) => `${s.page}/${s.pageSize}/${s.status}`)).toEqual(['1/100/404']);
	});
});
