/**
 * Paging under a service page cap, in n8n-core's real engine against the
 * emulator: Get Many (Return All and Limit) and the resource locators' list
 * searches, for knowledge bases and knowledge files, under caps 1, 7, 10 and
 * none, with and without pagination metadata. Every id must arrive exactly
 * once, never more than Limit, with the request count the rules allow:
 *   - the size asked is min(Limit, 100) (100 for Return All);
 *   - with metadata the list ends on the last page it names: ceil(n / served) requests;
 *   - without metadata only an empty page ends it: one request more, unless Limit was reached first.
 */
import type { INodeParameters } from 'n8n-workflow';

import { Testbed, emulatorCredential } from '../harness/testbed';

let bed: Testbed;

beforeAll(async () => {
	bed = await Testbed.start();
});
afterAll(async () => {
	await bed?.close();
	// The matrix's request counts, for the record.
	console.log(`paging matrix (${table.length} runs):\n${table.join('\n')}`);
});

const TOTAL = 23;
/** Base 3 has no seeded files; the matrix gives it TOTAL. */
const FILES_BASE = 3;
const LIST_PAGE = 100;
const table: string[] = [];

let baseIds: number[];
let fileIds: number[];

beforeEach(() => {
	bed.emulator.reset();
	bed.credentialsHelper.set(emulatorCredential(bed.emulator, 'knowledgeBase'));
	bed.emulator.knowledge.addKnowledgeBases(TOTAL - bed.emulator.knowledge.bases.size);
	bed.emulator.knowledge.addFiles(FILES_BASE, TOTAL);
	baseIds = bed.emulator.knowledge.listBases().map((b) => b.id);
	fileIds = bed.emulator.knowledge.filesOf(FILES_BASE).map((f) => f.id);
	expect(baseIds).toHaveLength(TOTAL);
	expect(fileIds).toHaveLength(TOTAL);
});

const byId = (id: number) => ({ __rl: true, mode: 'id', value: String(id) });

type Resource = 'knowledge bases' | 'knowledge files';
type Mode = 'strapi' | 'none';

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
const MODES: Mode[] = ['strapi', 'none'];
/** undefined = Return All. */
const LIMITS = [undefined, 1, 5, 23, 24] as const;

/** The list requests the emulator saw, as page/pageSize. */
const listRequests = (path: string) =>
	bed.emulator.log
		.filter((e) => e.method === 'GET' && e.path === path)
		.map((e) => ({ page: Number(e.query['pagination[page]']), pageSize: Number(e.query['pagination[pageSize]']), status: e.status }));

/** Requests the rules allow: ceil(wanted / served) with metadata; without, one more for the empty page unless Limit was reached. */
function expectedRequests(asked: number, cap: number | null, mode: Mode, limit: number | undefined): number {
	const served = cap === null ? asked : Math.min(asked, cap);
	const wanted = Math.min(limit ?? TOTAL, TOTAL);
	const pages = Math.ceil(wanted / served);
	const limitReached = limit !== undefined && limit <= TOTAL;
	return mode === 'none' && !limitReached ? pages + 1 : pages;
}

const label = (cap: number | null) => (cap === null ? 'no cap' : `cap ${cap}`);
const modeLabel = (mode: Mode) => (mode === 'strapi' ? 'with metadata' : 'without metadata');

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
