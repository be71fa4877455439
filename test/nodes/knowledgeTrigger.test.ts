/**
 * Workplace Knowledge Trigger, polled through n8n-core's TriggersAndPollers as an
 * active workflow is (one Workflow and its static data per activation), against
 * the emulator over HTTP. Changes are made through the emulator's admin route
 * (/__emulator/knowledge), as another user of the service would make them.
 *
 * The change matrix: each event × first run, manual run, normal poll, failed poll.
 */
import { createHash } from 'node:crypto';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { knowledgeAdmin } from '../../e2e/lib/knowledgeTrigger';
import { suiteTestbed } from '../../testbed/testbed';
import type { Poller } from '../../testbed/engine';
import { byId } from '../../testbed/locator';
import { figure } from '../figures';

const bed = suiteTestbed();
const matrix: string[] = [];

afterAll(async () => {
	figure(`knowledge trigger change matrix:\n${matrix.join('\n')}`);
});

const HANDBOOK = 1;
const ALL_EVENTS = ['fileAdded', 'fileReplaced', 'fileRemoved', 'fileStatusChanged', 'knowledgeBaseAdded', 'knowledgeBaseRemoved'];
const watchOne = (id = HANDBOOK, extra: INodeParameters = {}): INodeParameters => ({ watch: 'knowledgeBase', knowledgeId: byId(id), events: ALL_EVENTS, ...extra });
const watchAll = (extra: INodeParameters = {}): INodeParameters => ({ watch: 'all', events: ALL_EVENTS, ...extra });

/** The emulator's admin route for knowledge changes. */
const admin = async (method: string, path: string, body?: unknown): Promise<IDataObject> => (await knowledgeAdmin(bed.emulator.url, method, path, body)) as IDataObject;

const items = (result: INodeExecutionData[][] | null) => result?.[0] ?? [];
const events = (result: INodeExecutionData[][] | null) => items(result).map((item) => item.json.event);
const listRequests = () => bed.emulator.log.filter((e) => e.method === 'GET' && /^\/api\/v1\/knowledge(\/\d+\/files)?$/.test(e.path));
const stateOf = (poller: Poller) => JSON.parse(JSON.stringify(poller.staticData)) as IDataObject;

interface Kind {
	event: string;
	parameters: () => INodeParameters;
	/** Makes the change; returns the id it concerns (file or base). */
	change: () => Promise<number>;
}

const KINDS: Kind[] = [
	{
		event: 'fileAdded',
		parameters: () => watchOne(),
		change: async () => Number((await admin('POST', `/${HANDBOOK}/files`, { originalName: 'new-policy.csv', mimetype: 'text/csv', content: 'a,b\n1,2\n' })).id),
	},
	{
		event: 'fileReplaced',
		parameters: () => watchOne(),
		change: async () => Number((await admin('PUT', `/${HANDBOOK}/files/2`, { content: 'type,days\nannual,25\n' })).id),
	},
	{
		event: 'fileRemoved',
		parameters: () => watchOne(),
		change: async () => {
			await admin('DELETE', `/${HANDBOOK}/files/3`);
			return 3;
		},
	},
	{
		event: 'fileStatusChanged',
		parameters: () => watchOne(),
		change: async () => Number((await admin('PATCH', `/${HANDBOOK}/files/4`, { status: 'deleting' })).id),
	},
	{
		event: 'knowledgeBaseAdded',
		parameters: () => watchAll(),
		change: async () => Number((await admin('POST', '', { name: 'Onboarding' })).id),
	},
	{
		event: 'knowledgeBaseRemoved',
		parameters: () => watchAll(),
		change: async () => {
			await admin('DELETE', '/3');
			return 3;
		},
	},
];

/** The id a change item concerns: its file's, or for base events its base's. */
const subject = (item: INodeExecutionData) => Number(String(item.json.event).startsWith('knowledgeBase') ? item.json.knowledgeId : item.json.id);

describe('the change matrix: each event × first run, manual run, normal poll, failed poll', () => {
	it.each(KINDS.map((k) => [k.event, k]))('%s', async (_name, kind) => {
		const poller = bed.knowledgePoller(kind.parameters());
		const row: string[] = [];

		// First run: records what exists, reports nothing.
		expect(await poller.poll()).toBeNull();
		const recorded = stateOf(poller);
		expect(Object.keys((recorded.knowledge as IDataObject).bases as IDataObject).length).toBeGreaterThan(0);
		row.push('first run: 0 items, state recorded');

		const id = await kind.change();

		// Manual run: a sample of each chosen event (the newest file, or its base); the state is not touched.
		const sample = items(await poller.poll('manual'));
		const chosen = kind.event.startsWith('knowledgeBase') ? ALL_EVENTS : ALL_EVENTS.filter((e) => e.startsWith('file'));
		expect(sample.map((item) => item.json.event)).toEqual(chosen);
		expect(sample.every((item) => item.json.sample === true)).toBe(true);
		expect(stateOf(poller)).toEqual(recorded);
		row.push(`manual run: ${sample.length} samples (one per chosen event), state untouched`);

		// Failed poll: the listing fails (503 on every attempt); nothing reported, state kept.
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge*', times: Infinity, action: { kind: 'status', status: 503 } });
		await expect(poller.poll()).rejects.toThrow();
		bed.emulator.faults.clear();
		expect(stateOf(poller)).toEqual(recorded);
		row.push('failed poll (503): refused, 0 items, state kept');

		// Normal poll: the change exactly once, then nothing.
		const reported = items(await poller.poll());
		expect(reported.map((item) => item.json.event)).toEqual([kind.event]);
		expect(subject(reported[0])).toBe(id);
		expect(await poller.poll()).toBeNull();
		row.push(`next good poll: ${kind.event} × 1, then 0`);
		matrix.push(`| ${kind.event} | ${row.join(' | ')} |`);
	});
});

describe('what each change item holds', () => {
	it('replaced: the file as listed and what changed, before → after', async () => {
		const poller = bed.knowledgePoller(watchOne());
		await poller.poll();
		const before = bed.emulator.knowledge.files.get(2)!;
		const old = { size: before.meta.size, updatedAt: before.updatedAt };
		await admin('PUT', `/${HANDBOOK}/files/2`, { content: 'type,days\nannual,25\nsick,30\n', originalName: 'leave-policy-2025.csv' });
		const [item] = items(await poller.poll());
		const after = bed.emulator.knowledge.files.get(2)!;
		expect(item.json).toEqual({
			event: 'fileReplaced',
			id: 2,
			originalName: 'leave-policy-2025.csv',
			size: after.meta.size,
			mimeType: 'text/csv',
			status: 'active',
			usedByLanguageModel: true,
			knowledgeId: HANDBOOK,
			knowledgeName: 'Employee Handbook',
			createdAt: after.createdAt,
			updatedAt: after.updatedAt,
			changes: {
				updatedAt: { before: old.updatedAt, after: after.updatedAt },
				size: { before: old.size, after: after.meta.size },
				originalName: { before: 'leave-policy.csv', after: 'leave-policy-2025.csv' },
			},
		});
	});

	it('status changed: active → deleting, and not also "replaced" for the update time that moved with it', async () => {
		const poller = bed.knowledgePoller(watchOne());
		await poller.poll();
		await admin('PATCH', `/${HANDBOOK}/files/5`, { status: 'deleting' });
		const reported = items(await poller.poll());
		expect(reported.map((i) => i.json.event)).toEqual(['fileStatusChanged']);
		expect((reported[0].json.changes as IDataObject).status).toEqual({ before: 'active', after: 'deleting' });
		expect(reported[0].json.usedByLanguageModel).toBe(false);
	});

	it('a deleting file replaced with new content: replaced and status changed, one item each', async () => {
		const poller = bed.knowledgePoller(watchOne());
		await poller.poll();
		await admin('PUT', `/${HANDBOOK}/files/6`, { contentBase64: Buffer.from('%PDF-1.4 new').toString('base64') });
		expect(events(await poller.poll())).toEqual(['fileReplaced', 'fileStatusChanged']);
	});

	it('removed: the file as last recorded, and its knowledge base', async () => {
		const poller = bed.knowledgePoller(watchOne());
		await poller.poll();
		await admin('DELETE', `/${HANDBOOK}/files/1`);
		const [item] = items(await poller.poll());
		// The fields the state keeps; a removed file's content is not the language model's any more.
		expect(item.json).toEqual({
			event: 'fileRemoved',
			id: 1,
			originalName: 'handbook.pdf',
			size: expect.any(Number),
			status: 'active',
			usedByLanguageModel: false,
			knowledgeId: HANDBOOK,
			knowledgeName: 'Employee Handbook',
			updatedAt: expect.any(String),
		});
	});

	it('watching all: a new base with files reports the base and each file; a removed base reports itself, not its files', async () => {
		const poller = bed.knowledgePoller(watchAll());
		await poller.poll();
		const kb = await admin('POST', '', { name: 'Onboarding' });
		await admin('POST', `/${String(kb.id)}/files`, { originalName: 'day-one.csv', mimetype: 'text/csv', content: 'step\nbadge\n' });
		await admin('DELETE', '/2');
		expect(events(await poller.poll())).toEqual(['knowledgeBaseAdded', 'fileAdded', 'knowledgeBaseRemoved']);
	});

	it('only the chosen events start the workflow; the others are recorded silently', async () => {
		const poller = bed.knowledgePoller(watchOne(HANDBOOK, { events: ['fileStatusChanged'] }));
		await poller.poll();
		await admin('PUT', `/${HANDBOOK}/files/2`, { content: 'x,y\n1,2\n' });
		expect(await poller.poll()).toBeNull();
		await admin('PATCH', `/${HANDBOOK}/files/2`, { status: 'deleting' });
		expect(events(await poller.poll())).toEqual(['fileStatusChanged']);
	});

	it('Include File Content: added and replaced files come with their content as binary, streamed as Download does', async () => {
		const poller = bed.knowledgePoller(watchOne(HANDBOOK, { options: { includeContent: true, binaryPropertyName: 'content' } }));
		await poller.poll();
		const added = 'question,answer\nwhere,here\n';
		const fileId = Number((await admin('POST', `/${HANDBOOK}/files`, { originalName: 'where.csv', mimetype: 'text/csv', content: added })).id);
		await admin('DELETE', `/${HANDBOOK}/files/3`);
		const reported = items(await poller.poll());
		expect(reported.map((i) => i.json.event)).toEqual(['fileAdded', 'fileRemoved']);
		const binary = reported[0].binary!.content;
		expect(binary).toMatchObject({ fileName: 'where.csv', mimeType: 'text/csv' });
		expect(Buffer.from(binary.data, 'base64').toString()).toBe(added);
		expect(reported[1].binary).toBeUndefined();
		const downloads = bed.emulator.log.filter((e) => e.path.endsWith('/download'));
		expect(downloads.map((e) => e.path)).toEqual([`/api/v1/knowledge/${HANDBOOK}/files/${fileId}/download`]);
	});

	it('a download that fails fails the poll: nothing reported, state kept, the next poll reports the file with its content', async () => {
		const poller = bed.knowledgePoller(watchOne(HANDBOOK, { options: { includeContent: true } }));
		await poller.poll();
		const recorded = stateOf(poller);
		await admin('PUT', `/${HANDBOOK}/files/2`, { content: 'a,b\n3,4\n' });
		bed.emulator.faults.add({ method: 'GET', path: /\/download$/, times: Infinity, action: { kind: 'status', status: 503 } });
		await expect(poller.poll()).rejects.toThrow();
		expect(stateOf(poller)).toEqual(recorded);
		bed.emulator.faults.clear();
		const [item] = items(await poller.poll());
		expect(item.json.event).toBe('fileReplaced');
		expect(Buffer.from(item.binary!.data.data, 'base64').toString()).toBe('a,b\n3,4\n');
	});

	it('a manual run with no files returns nothing; with Include File Content its sample carries the content', async () => {
		expect(await bed.knowledgePoller(watchOne(3)).poll('manual')).toBeNull();
		const [sample] = items(await bed.knowledgePoller(watchOne(2, { options: { includeContent: true } })).poll('manual'));
		const newest = bed.emulator.knowledge.filesOf(2).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
		expect(sample.json.id).toBe(newest.id);
		expect(createHash('sha256').update(Buffer.from(sample.binary!.data.data, 'base64')).digest('hex')).toBe(newest.sha256);
	});
});

describe('Fetch Test Event: a sample of each chosen event, with every field a real item of that event has', () => {
	it.each(KINDS.map((k) => [k.event, k]))('%s', async (_name, kind) => {
		const poller = bed.knowledgePoller({ ...kind.parameters(), events: [kind.event] });
		await poller.poll();
		await kind.change();
		const [real] = items(await poller.poll());
		const samples = items(await poller.poll('manual'));
		expect(samples.map((item) => item.json.event)).toEqual([kind.event]);
		const [sample] = samples;
		expect(Object.keys(sample.json)).toEqual(['sample', ...Object.keys(real.json)]);
		if (real.json.changes) {
			// Every field a change can name, so each can be mapped; a sample has no before.
			const changes = sample.json.changes as Record<string, { before: unknown; after: unknown }>;
			expect(Object.keys(changes)).toEqual(expect.arrayContaining(Object.keys(real.json.changes as IDataObject)));
			expect(Object.values(changes).map((change) => change.before)).toEqual(Object.values(changes).map(() => null));
		}
	});

	it('follows the events the change alert example chooses: replaced and status changed, never "added"', async () => {
		const samples = items(await bed.knowledgePoller(watchAll({ events: ['fileReplaced', 'fileStatusChanged'] })).poll('manual'));
		expect(samples.map((item) => item.json.event)).toEqual(['fileReplaced', 'fileStatusChanged']);
		const newest = [...bed.emulator.knowledge.files.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
		expect(samples.map((item) => [item.json.sample, item.json.id, item.json.originalName])).toEqual([
			[true, newest.id, newest.meta.originalName],
			[true, newest.id, newest.meta.originalName],
		]);
		expect((samples[1].json.changes as IDataObject).status).toEqual({ before: null, after: newest.status });
	});
});

describe('bad input fails before anything is sent', () => {
	it.each([
		['a knowledge base id that is not a number', watchOne(HANDBOOK, { knowledgeId: { __rl: true, mode: 'id', value: 'handbook' } }), 'Invalid "Knowledge Base": expected a knowledge base ID (a positive whole number), got "handbook"'],
		['no event chosen', watchOne(HANDBOOK, { events: [] }), 'Invalid "Events": choose at least one of File Added, File Replaced, File Removed, File Status Changed (knowledge base events need Watch: All Knowledge Bases)'],
		['only knowledge base events while watching one', watchOne(HANDBOOK, { events: ['knowledgeBaseAdded'] }), 'Invalid "Events": choose at least one of File Added'],
	])('%s', async (_name, parameters, message) => {
		const poller = bed.knowledgePoller(parameters);
		await expect(poller.poll()).rejects.toThrow(message);
		expect(bed.emulator.log).toHaveLength(0);
		expect(poller.staticData).toEqual({});
	});
});

describe('a listing that cannot be trusted whole reports nothing and keeps the state', () => {
	const FILES = 23;
	const page = (ids: number[], meta: object) => ({ data: ids.map((id) => ({ id, status: 'active', meta: { originalName: `f${id}.csv`, size: 1 } })), meta: { pagination: meta } });

	async function armed(): Promise<{ poller: Poller; recorded: IDataObject; ids: number[] }> {
		bed.emulator.setConfig({ pageCap: 10 });
		bed.emulator.knowledge.addFiles(3, FILES);
		const poller = bed.knowledgePoller(watchOne(3));
		expect(await poller.poll()).toBeNull();
		await admin('DELETE', `/3/files/${bed.emulator.knowledge.filesOf(3)[0].id}`);
		return { poller, recorded: stateOf(poller), ids: bed.emulator.knowledge.filesOf(3).map((f) => f.id) };
	}

	async function caughtUp(poller: Poller): Promise<void> {
		bed.emulator.faults.clear();
		expect(events(await poller.poll())).toEqual(['fileRemoved']);
		expect(await poller.poll()).toBeNull();
	}

	it('an empty page before the total the metadata names (a page-cap surprise)', async () => {
		const { poller, recorded } = await armed();
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/3/files', skip: 1, action: { kind: 'status', status: 200, body: page([], { page: 2, pageSize: 10, pageCount: 3, total: 22 }) } });
		await expect(poller.poll()).rejects.toThrow("The listing of knowledge base 3's files ended with 10 items where its metadata names 22; nothing was reported and the recorded state was kept");
		expect(stateOf(poller)).toEqual(recorded);
		await caughtUp(poller);
	});

	it('a total that changes between pages: the paging reader reads the list again, and the removal is reported once', async () => {
		const { poller, ids } = await armed();
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/3/files', skip: 2, action: { kind: 'status', status: 200, body: page(ids.slice(20), { page: 3, pageSize: 10, pageCount: 3, total: 23 }) } });
		expect(events(await poller.poll())).toEqual(['fileRemoved']);
		expect(await poller.poll()).toBeNull();
	});

	it('a page repeating the one before (the reader refuses it)', async () => {
		const { poller, recorded, ids } = await armed();
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/3/files', skip: 1, action: { kind: 'status', status: 200, body: page(ids.slice(0, 10), { page: 1, pageSize: 10, pageCount: 3, total: 22 }) } });
		await expect(poller.poll()).rejects.toThrow(/page 2 repeats page 1/);
		expect(stateOf(poller)).toEqual(recorded);
		await caughtUp(poller);
	});

	it('an id listed again on a later page (the list moved while it was read): read again, the removal reported once', async () => {
		const { poller, ids } = await armed();
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/3/files', skip: 1, action: { kind: 'status', status: 200, body: page([ids[9], ...ids.slice(11, 20)], { page: 2, pageSize: 10, pageCount: 3, total: 22 }) } });
		expect(events(await poller.poll())).toEqual(['fileRemoved']);
		expect(await poller.poll()).toBeNull();
	});

	it('a list that keeps moving while it is read (3 reads): reports nothing and keeps the state', async () => {
		const { poller, recorded, ids } = await armed();
		const moved = page([ids[9], ...ids.slice(11, 20)], { page: 2, pageSize: 10, pageCount: 3, total: 22 });
		// Page 2 of each of the three reads (every matching rule still skipping counts each request).
		for (const skip of [1, 3, 5]) bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/3/files', skip, action: { kind: 'status', status: 200, body: moved } });
		await expect(poller.poll()).rejects.toThrow(/the list changed while it was read .* \(it was read 3 times from the first page and changed each time\)$/);
		expect(stateOf(poller)).toEqual(recorded);
		await caughtUp(poller);
	});

	it('a service without metadata is read until its empty page, and a 503 there fails the poll', async () => {
		const { poller, recorded } = await armed();
		bed.emulator.setConfig({ paginationMode: 'none' });
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/3/files', skip: 3, times: Infinity, action: { kind: 'status', status: 503 } });
		await expect(poller.poll()).rejects.toThrow();
		expect(stateOf(poller)).toEqual(recorded);
		await caughtUp(poller);
	});

	it('watching all: one knowledge base failing fails the whole poll (never a false "removed")', async () => {
		const poller = bed.knowledgePoller(watchAll());
		await poller.poll();
		const recorded = stateOf(poller);
		await admin('DELETE', `/${HANDBOOK}/files/1`);
		bed.emulator.faults.add({ method: 'GET', path: '/api/v1/knowledge/2/files', times: Infinity, action: { kind: 'status', status: 503 } });
		await expect(poller.poll()).rejects.toThrow();
		expect(stateOf(poller)).toEqual(recorded);
		bed.emulator.faults.clear();
		expect(events(await poller.poll())).toEqual(['fileRemoved']);
	});
});

describe('a service whose largest page is below the 100 asked', () => {
	it('the first poll meets the refusal once, every list is read at the size answered, later polls ask it directly', async () => {
		bed.emulator.setConfig({ maxPageSize: 20 });
		bed.emulator.knowledge.addFiles(3, 23);
		const bases = bed.emulator.knowledge.listBases().map((b) => b.id);
		const sizes = () => listRequests().map((e) => `${e.path.replace('/api/v1/knowledge', '') || '/'} ${String(e.query['pagination[pageSize]'])} ${e.status}`);
		const everyList = ['/ 20 200', ...bases.flatMap((id) => (id === 3 ? ['/3/files 20 200', '/3/files 20 200'] : [`/${id}/files 20 200`]))];

		const poller = bed.knowledgePoller(watchAll());
		expect(await poller.poll()).toBeNull();
		expect(sizes()).toEqual(['/ 100 422', '/ 50 422', ...everyList]);

		await admin('DELETE', `/3/files/${bed.emulator.knowledge.filesOf(3)[0].id}`);
		bed.emulator.clearLog();
		expect(events(await poller.poll())).toEqual(['fileRemoved']);
		// n8n keeps a trigger's context for as long as it is active, so the size answered is kept with it.
		expect(sizes()).toEqual(everyList);
	});
});

describe('10,000 files per poll', () => {
	it('compares them with one request per 100 files, and keeps a small state', async () => {
		bed.emulator.knowledge.addFiles(3, 10_000);
		const poller = bed.knowledgePoller(watchOne(3));
		bed.emulator.clearLog();
		expect(await poller.poll()).toBeNull();
		const first = listRequests().length;
		const stateBytes = Buffer.byteLength(JSON.stringify(poller.staticData));

		const ids = bed.emulator.knowledge.filesOf(3).map((f) => f.id);
		await admin('PUT', `/3/files/${ids[5000]}`, { content: 'changed,content\n1,2\n' });
		await admin('PATCH', `/3/files/${ids[7000]}`, { status: 'deleting' });
		await admin('DELETE', `/3/files/${ids[9999]}`);
		await admin('POST', '/3/files', { originalName: 'late.csv', mimetype: 'text/csv', content: 'a\n1\n' });
		bed.emulator.clearLog();
		const started = Date.now();
		const reported = items(await poller.poll());
		const ms = Date.now() - started;
		expect(reported.map((i) => [i.json.event, i.json.id])).toEqual([
			['fileReplaced', ids[5000]],
			['fileStatusChanged', ids[7000]],
			['fileAdded', ids[9999] + 1],
			['fileRemoved', ids[9999]],
		]);
		const second = listRequests();
		expect(first).toBe(100);
		expect(second).toHaveLength(100);
		expect(second.every((e) => e.query['pagination[pageSize]'] === '100')).toBe(true);
		expect(bed.emulator.log).toHaveLength(100);

		// All knowledge bases: one request for the bases, then each base's pages.
		const all = bed.knowledgePoller(watchAll());
		bed.emulator.clearLog();
		await all.poll();
		const allRequests = listRequests().length;
		expect(allRequests).toBe(1 + 1 + 1 + 100);
		// Under a page cap of 50 the reader follows what the service serves.
		bed.emulator.setConfig({ pageCap: 50 });
		bed.emulator.clearLog();
		expect(await poller.poll()).toBeNull();
		const capped = listRequests().length;
		expect(capped).toBe(200);
		figure(`10,000 files: ${first} list requests on the first poll, ${second.length} on a poll with 4 changes (${ms} ms), state ${stateBytes} bytes; all bases (3): ${allRequests} requests; page cap 50: ${capped} requests`);
	});
});
