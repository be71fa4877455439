/**
 * The one rule for tables built from outside data (shared/ownEntry.ts: no
 * prototype, own keys only), held for every such table of the shipped code in
 * one test: each is fed `__proto__`, `constructor`, `toString` and `valueOf`,
 * the names a plain object answers to or loses, and must treat them as the
 * text they are. Tables a node builds from a listing, an event or an option
 * run in n8n-core's engine; the look-up tables as the pure functions they are.
 *
 * A new table from outside data gets a row in TABLES.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { suiteTestbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';
import { eventsToItems } from '../../nodes/WorkplaceTrigger/events';
import { uploadMimeType } from '../../nodes/Workplace/actions/knowledgeFile/replace.operation';
import { networkMessage } from '../../shared/transport/failureMessages';
import { nameN8nDrops } from '../../shared/ownEntry';
import { NODE_OUTCOMES, relayOutcome } from '../../shared/sendAndWait/relay';
import { storedRun } from '../../testbed/waitingWebhooks';
import { hiddenFields, open, post, questionWorkflow } from './sendAndWaitQuestion';

const bed = suiteTestbed();

/** The names a plain object answers to (inherited) or loses (`__proto__` sets its prototype). */
const KEYS = ['__proto__', 'constructor', 'toString', 'valueOf'] as const;

const HANDBOOK = 1;
const listedFile = (id: string) => ({ id, status: 'active', updatedAt: '2026-01-01T00:00:00.000Z', meta: { originalName: `${id}.csv`, size: 8 } });
/** The handbook's file listing answering `ids`, once, as one complete page. */
function listingOf(ids: string[]) {
	const body = { data: ids.map(listedFile), meta: { pagination: { page: 1, pageSize: 100, pageCount: 1, total: ids.length } } };
	bed.emulator.faults.add({ method: 'GET', path: `/api/v1/knowledge/${HANDBOOK}/files`, action: { kind: 'status', status: 200, body } });
}
const changes = (result: INodeExecutionData[][] | null) => (result?.[0] ?? []).map((item) => [item.json.event, item.json.id]);
const runV2 = async (parameters: INodeParameters, items?: INodeExecutionData[]) => await bed.runNode(parameters, { typeVersion: 2, items });

interface Table {
	/** Where the table is built, and from what. */
	table: string;
	feed(keys: readonly string[]): Promise<void>;
}

const TABLES: Table[] = [
	{
		table: "the knowledge trigger's recorded state (file ids from a listing), across a reload of n8n's static data",
		async feed(keys) {
			const poller = bed.knowledgePoller({ watch: 'knowledgeBase', knowledgeId: byId(HANDBOOK), events: ['fileAdded', 'fileReplaced', 'fileRemoved'] });
			listingOf(['1']);
			expect(await poller.poll()).toBeNull();
			listingOf(['1', ...keys]);
			expect(changes(await poller.poll())).toEqual(keys.map((key) => ['fileAdded', key]));
			// n8n keeps static data as JSON in its database: what a restart reads back.
			const stored = poller.staticData;
			stored.knowledge = JSON.parse(JSON.stringify(stored.knowledge)) as IDataObject;
			listingOf(['1', ...keys]);
			expect(await poller.poll()).toBeNull();
			listingOf(['1']);
			expect(changes(await poller.poll())).toEqual(keys.map((key) => ['fileRemoved', key]));
		},
	},
	{
		table: "the knowledge trigger's Events option",
		async feed(keys) {
			const poller = bed.knowledgePoller({ watch: 'knowledgeBase', knowledgeId: byId(HANDBOOK), events: [...keys] });
			await expect(poller.poll()).rejects.toThrow('Invalid "Events": choose at least one of File Added, File Replaced, File Removed, File Status Changed');
		},
	},
	{
		table: "output binary fields named by an option (Put Output File in Field: Download's, the knowledge trigger's)",
		async feed(keys) {
			for (const key of keys) {
				const run = await runV2({ resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(HANDBOOK), fileId: byId(2), binaryPropertyName: key });
				const poll = bed.knowledgePoller({ watch: 'knowledgeBase', knowledgeId: byId(HANDBOOK), events: ['fileAdded'], options: { includeContent: true, binaryPropertyName: key } }).poll('manual');
				if (key === '__proto__' || key === 'constructor') {
					const refused = `"${key}" cannot name a field: n8n leaves a field of that name out when it passes items on`;
					expect(run.error?.message).toBe(`Invalid "Put Output File in Field" in item 0: ${refused}`);
					await expect(poll).rejects.toThrow(`Invalid "Put Output File in Field": ${refused}`);
				} else {
					expect(Object.keys(run.items[0].binary ?? {})).toEqual([key]);
					expect(Object.keys((await poll)?.[0][0].binary ?? {})).toEqual([key]);
				}
			}
		},
	},
	{
		table: "an item's binary fields, looked up by an option (Replace's Input Binary Field)",
		async feed(keys) {
			const item: INodeExecutionData = { json: {}, binary: { data: { data: Buffer.from('a,b\n').toString('base64'), mimeType: 'text/csv', fileName: 'a.csv' } } };
			for (const key of keys) {
				const run = await runV2({ resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(HANDBOOK), fileId: byId(2), binaryPropertyName: key }, [item]);
				expect(run.error?.message).toBe(`Invalid "Input Binary Field" in item 0: the item has no binary field "${key}"`);
			}
		},
	},
	{
		table: 'priorities typed by a user (Task → Create)',
		async feed(keys) {
			const before = bed.emulator.taskProjects.tasks.size;
			for (const key of keys) {
				const run = await runV2({ resource: 'task', operation: 'create', taskTitle: 'Call back', additionalFields: { priority: key } });
				expect(run.error?.message).toMatch(/^Invalid "Priority" in item 0: /);
			}
			expect(bed.emulator.taskProjects.tasks.size).toBe(before);
		},
	},
	{
		table: 'file extensions and failure codes looked up in tables (an upload\'s type by its extension, a network failure\'s message)',
		async feed(keys) {
			for (const key of keys) {
				expect(uploadMimeType('application/octet-stream', `notes.${key}`)).toBeUndefined();
				expect(networkMessage(key)).toBe(`The request to the service failed (${key})`);
			}
		},
	},
	{
		table: "the Workplace Trigger's events (a webhook body, parsed as n8n parses it)",
		async feed(keys) {
			const inherited = Object.fromEntries(keys.map((key) => [key, { type: 'postback', source: { uid: 'admin' } }]));
			const body = JSON.parse(JSON.stringify({ events: [{ type: 'message', ...inherited, source: { ...inherited } }] })) as { events: IDataObject[] };
			const [item] = eventsToItems(body.events, ['*'], { version: 2, verified: true });
			expect(item.json).toMatchObject({ type: 'message', userId: null, sourceType: null, data: null });
		},
	},
	{
		table: "Send and Wait's form (Custom Form labels, the submitted form read back as the answer, the page's problems by label), answered through n8n's waiting webhook",
		async feed(keys) {
			const store = bed.executionStore();
			const server = await bed.waitingWebhooks(store);
			store.publicUrl = server.url;
			try {
				const field = (key: string) => ({ fieldLabel: key, fieldType: 'text', requiredField: true });
				const dropped = keys.filter((key) => nameN8nDrops(key));
				for (const key of dropped) {
					const refused = await store.start(questionWorkflow({ responseType: 'customForm', formFields: { values: [field('Name'), field(key)] } }));
					expect(refused.run.error?.message).toBe(`Invalid "Form Fields" in item 0: field 2 cannot be labelled "${key}": n8n leaves a field of that name out of items; choose another label`);
				}
				const labels = keys.filter((key) => !nameN8nDrops(key));
				const { id } = await store.start(questionWorkflow({ responseType: 'customForm', formFields: { values: labels.map(field) } }));
				const push = bed.emulator.logFor('POST', '/bot/v2/message/push').at(-1)!;
				const link = (push.body as { messages: Array<{ template: { actions: IDataObject[] } }> }).messages.at(-1)!.template.actions[0].linkUri as string;
				const errorsShown = (html: string) => [...html.matchAll(/<div class="error">([^<]*)<\/div>/g)].map((m) => m[1]);
				const page = await open(link);
				expect([page.status, errorsShown(page.body)]).toEqual([200, []]);
				const token = hiddenFields(page.body);
				const empty = await post(link, { ...token, ...Object.fromEntries(labels.map((_, n) => [`field-${n}`, ''])) }, { multipart: true });
				expect([empty.status, errorsShown(empty.body)]).toEqual([400, labels.map(() => 'This field is required')]);
				// Only the last field left empty: its problem alone is shown (the other labels find no problem of theirs).
				const lastEmpty = await post(link, { ...token, ...Object.fromEntries(labels.map((label, n) => [`field-${n}`, n === labels.length - 1 ? '' : label])) }, { multipart: true });
				expect([lastEmpty.status, errorsShown(lastEmpty.body)]).toEqual([400, ['This field is required']]);
				const filled = await post(link, { ...token, ...Object.fromEntries(labels.map((label, n) => [`field-${n}`, `${label} answer`])) }, { multipart: true });
				expect(filled.status).toBe(200);
				await server.settled();
				const answer = storedRun(store, id).nodes.After?.[0].outputs[0][0].json.data as IDataObject;
				expect(Object.entries(answer).filter(([key]) => key !== 'respondedAt')).toEqual(labels.map((label) => [label, `${label} answer`]));
			} finally {
				await server.close();
			}
		},
	},
	{
		table: "the relay's table of the waiting node's outcomes (the `outcome` of a waiting webhook's answer)",
		async feed(keys) {
			for (const key of keys) {
				expect(NODE_OUTCOMES[key]).toBeUndefined();
				for (const status of [200, 403, 404, 409, 410, 500]) expect([status, relayOutcome(status, { outcome: key })]).toEqual([status, relayOutcome(status, { outcome: 'unheard-of' })]);
			}
		},
	},
];

it('no table built from outside data answers to an inherited name, or drops one: __proto__, constructor, toString, valueOf', async () => {
	for (const { table, feed } of TABLES) {
		bed.emulator.faults.clear();
		try {
			await feed(KEYS);
		} catch (error) {
			throw new Error(`${table}: ${(error as Error).message}`);
		}
	}
});
