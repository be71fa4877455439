/**
 * The package's contract on the oldest n8n it supports and on the newest 2.x:
 * every operation of the Workplace node once, in one workflow run with
 * `n8n execute`, and the Workplace Trigger once (a published workflow under
 * `n8n start`, one signed webhook call, its task at the emulator).
 *
 * Versions: e2e/'s n8n (2.41.1, the newest 2.x whose dependencies the registry
 * serves) and every folder under e2e/versions/ (installed by
 * `bash e2e/install.sh <version>`; today 1.85.4, the oldest, on its own Node 22).
 * E2E_SKIP_VERSIONS=1 runs e2e/'s n8n only.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

import { SEED_GROUP_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { EXAMPLE_CREDENTIALS } from '../../testbed/examples';
import { E2E_DIR, n8nInstall, nodeOutput, type N8nInstall } from '../../testbed/n8n';
import { byId } from '../../testbed/locator';
import { until } from '../../testbed/until';
import { e2eTestbed } from '../lib/testbed';
import { workplaceTrigger } from '../lib/workflows';
import { chainWorkflow } from '../../testbed/chainWorkflow';

const VERSIONS_DIR = path.join(E2E_DIR, 'versions');
const installs: N8nInstall[] = [
	n8nInstall(),
	...(existsSync(VERSIONS_DIR) ? readdirSync(VERSIONS_DIR) : [])
		.filter((name) => existsSync(path.join(VERSIONS_DIR, name, 'package.json')) && !process.env.E2E_SKIP_VERSIONS)
		.map((name) => n8nInstall(path.join(VERSIONS_DIR, name))),
];

const KB = 2; // the seeded knowledge base with files (Product FAQ)
const CREDS = EXAMPLE_CREDENTIALS;
type Area = keyof typeof CREDS;

/** One Workplace node of the contract workflow: its name, operation parameters and credential. */
function op(name: string, area: Area, parameters: Record<string, unknown>, position: number) {
	return {
		parameters,
		id: randomUUID(),
		name,
		type: 'n8n-nodes-workplace.workplace',
		typeVersion: 1,
		position: [220 * (position % 10), 200 * Math.floor(position / 10)],
		credentials: { [area]: CREDS[area] },
	};
}


/** Every operation once; chains where one needs what another made, all starting from Run. */
const OPERATIONS = [
	op('KB create', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeBase', operation: 'create', name: 'Version matrix', source: 'internal', supportedLanguages: ['en'], createFulfillment: false }, 1),
	op('KB get', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}') }, 2),
	op('KB delete', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeBase', operation: 'delete', knowledgeId: byId('={{ $json.id }}') }, 3),
	op('KB get many', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeBase', operation: 'getAll', returnAll: false, limit: 2 }, 11),
	op('File get many', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(String(KB)), returnAll: false, limit: 1 }, 21),
	op('File get', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeFile', operation: 'get', knowledgeId: byId(String(KB)), fileId: byId('={{ $json.id }}') }, 22),
	op('File download', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(String(KB)), fileId: byId('={{ $json.id }}'), binaryPropertyName: 'data' }, 23),
	op('File replace', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(String(KB)), fileId: byId("={{ $('File get').item.json.id }}"), binaryPropertyName: 'data', options: {} }, 24),
	op('File delete', 'workplaceKnowledgeBaseApi', { resource: 'knowledgeFile', operation: 'delete', knowledgeId: byId(String(KB)), fileId: byId("={{ $('File get').item.json.id }}") }, 25),
	op('User find', 'workplaceBotApi', { resource: 'user', operation: 'findByUsername', username: 'nattaya.p', options: { excludeDeleted: true, exactMatch: true } }, 31),
	op('Task create', 'workplaceTaskProjectsApi', { resource: 'task', operation: 'create', taskTitle: 'Version matrix task', additionalFields: { assigneeId: '={{ $json._id }}' } }, 32),
	op('Topic create', 'workplaceTaskProjectsApi', { resource: 'topic', operation: 'create', taskTitle: 'Version matrix topic', additionalFields: {} }, 41),
	op('Group create', 'workplaceBotApi', { resource: 'group', operation: 'create', name: 'Version matrix', members: SEED_USER_IDS.nattaya }, 51),
	op('Group topic create', 'workplaceBotApi', { resource: 'groupTopic', operation: 'create', groupId: '={{ $json._id }}', name: 'Timeline' }, 52),
	op('User in group', 'workplaceBotApi', { resource: 'user', operation: 'getInfoInGroup', groupId: SEED_GROUP_IDS.incidentRoom, userId: SEED_USER_IDS.nattaya }, 61),
	op('Action build', 'workplaceBotApi', { resource: 'messageAction', operation: 'build', type: 'postback', usedIn: 'button', label: 'Acknowledge', data: 'ack:1' }, 71),
];
const CHAINS = [
	['KB create', 'KB get', 'KB delete'],
	['KB get many'],
	['File get many', 'File get', 'File download', 'File replace', 'File delete'],
	['User find', 'Task create'],
	['Topic create'],
	['Group create', 'Group topic create'],
	['User in group'],
	['Action build'],
];
const link = (node: string) => ({ main: [[{ node, type: 'main', index: 0 }]] });
const contractWorkflow = {
	id: 'wpVersionMatrix1',
	name: 'Every operation once',
	// n8n 1.x's import needs the flag (its column is NOT NULL).
	active: false,
	nodes: [
		{ parameters: {}, id: randomUUID(), name: 'Run', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
		...OPERATIONS,
	],
	connections: {
		Run: { main: [CHAINS.map((chain) => ({ node: chain[0], type: 'main', index: 0 }))] },
		...Object.fromEntries(CHAINS.flatMap((chain) => chain.slice(0, -1).map((name, n) => [name, link(chain[n + 1])]))),
	},
	settings: { executionOrder: 'v1' },
};

/** What the operations must have sent (method, path with ids as patterns), each answered 2xx. */
const EXPECTED_REQUESTS: Array<[string, RegExp]> = [
	['POST', /^\/api\/v1\/knowledge$/],
	['GET', /^\/api\/v1\/knowledge\/\d+$/],
	['DELETE', /^\/api\/v1\/knowledge\/\d+$/],
	['GET', /^\/api\/v1\/knowledge$/],
	['GET', new RegExp(`^/api/v1/knowledge/${KB}/files$`)],
	['GET', new RegExp(`^/api/v1/knowledge/${KB}/files/[^/]+$`)],
	['GET', new RegExp(`^/api/v1/knowledge/${KB}/files/[^/]+/download$`)],
	['PUT', new RegExp(`^/api/v1/knowledge/${KB}/files/[^/]+$`)],
	['DELETE', new RegExp(`^/api/v1/knowledge/${KB}/files/[^/]+$`)],
	['GET', /^\/bot\/v1\/users$/],
	['POST', /^\/api\/v1\/task-projects\/tasks$/],
	['POST', /^\/api\/v1\/task-projects\/topics$/],
	['POST', /^\/bot\/v1\/groups$/],
	['POST', /^\/bot\/v1\/groups\/[^/]+\/topics$/],
	['GET', /^\/bot\/v2\/groups\/[^/]+\/users\/[^/]+\/info$/],
];

const trigger = workplaceTrigger(['postback']);
const triggerWorkflow = {
	...chainWorkflow('wpVersionTrigger', 'Trigger once', [
		trigger,
		op('Task for the event', 'workplaceTaskProjectsApi', { resource: 'task', operation: 'create', taskTitle: '=Event {{ $json.data }}', additionalFields: {} }, 1),
	]),
	active: false,
};

const knowledgeWorkflow = {
	id: 'wpVersionKnowledge',
	name: 'Knowledge trigger once',
	active: false,
	nodes: [
		{
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				watch: 'knowledgeBase',
				knowledgeId: byId('1'),
				events: ['fileAdded', 'fileReplaced', 'fileRemoved', 'fileStatusChanged'],
				options: {},
			},
			id: randomUUID(),
			name: 'Workplace Knowledge Trigger',
			type: 'n8n-nodes-workplace.workplaceKnowledgeTrigger',
			typeVersion: 1,
			position: [0, 0],
			credentials: { workplaceKnowledgeBaseApi: CREDS.workplaceKnowledgeBaseApi },
		},
		op('Task for the change', 'workplaceTaskProjectsApi', { resource: 'task', operation: 'create', taskTitle: '=Knowledge {{ $json.event }} {{ $json.id }}', additionalFields: {} }, 1),
	],
	connections: { 'Workplace Knowledge Trigger': link('Task for the change') },
	settings: { executionOrder: 'v1' },
};

describe.each(installs.map((install) => [install.version, install] as const))('n8n %s', (version, install) => {
	// n8n starts for the triggers only; `n8n execute` needs no server.
	const bed = e2eTestbed({ install, workflows: [contractWorkflow, triggerWorkflow, knowledgeWorkflow], start: false });

	test('every operation of the Workplace node runs once', async () => {
		const result = await bed.n8n.execute(contractWorkflow.id);
		expect(result.data.resultData.error).toBeUndefined();
		for (const node of OPERATIONS) {
			const runs = result.data.resultData.runData[node.name];
			expect({ node: node.name, ran: Boolean(runs), error: runs?.[0]?.error }).toEqual({ node: node.name, ran: true, error: undefined });
			expect(nodeOutput(result, node.name).length).toBeGreaterThan(0);
		}
		const sent = bed.emulator.log.filter((entry) => entry.path !== '/oauth/token');
		for (const [method, pattern] of EXPECTED_REQUESTS) {
			const hits = sent.filter((entry) => entry.method === method && pattern.test(entry.path));
			// At least once (a download also reads the file's metadata), and never refused.
			expect({ request: `${method} ${pattern.source}`, sent: hits.length > 0, refused: hits.filter((e) => (e.status ?? 0) >= 300) }).toEqual({
				request: `${method} ${pattern.source}`,
				sent: true,
				refused: [],
			});
		}
		expect(nodeOutput(result, 'Action build')[0]).toMatchObject({ type: 'postback', data: 'ack:1' });
	});

	test('the Workplace Trigger starts a published workflow on a signed call', async () => {
		await bed.publish(triggerWorkflow);
		await bed.server();
		const eventId = `evt-${randomUUID()}`;
		const raw = JSON.stringify({
			events: [{ type: 'postback', replyToken: 'rt-1', source: { type: 'user', uid: SEED_USER_IDS.nattaya }, timestamp: Date.now(), postback: { data: eventId } }],
		});
		const signature = bed.sign(raw);
		// 404 until n8n has registered the webhook.
		const status = await until('the webhook to be registered', async () => {
			const response = await fetch(`${bed.n8n.url}/webhook/${trigger.webhookId}/webhook`, {
				method: 'POST',
				headers: { 'content-type': 'application/json', 'X-Eko-Signature': signature },
				body: raw,
			});
			return response.status === 404 ? undefined : response.status;
		}, 60_000, { everyMs: 1_000 });
		expect(status).toBe(200);
		const eventTasks = () => [...bed.emulator.taskProjects.tasks.values()].filter((t) => t.taskTitle === `Event ${eventId}`);
		await until(`the task of ${eventId}`, () => (eventTasks().length > 0 ? true : undefined), 60_000);
		expect(eventTasks()).toHaveLength(1);
	});

	test('the Workplace Knowledge Trigger polls on the schedule and reports each change once', async () => {
		await bed.stopN8n();
		await bed.publish(knowledgeWorkflow);
		const listed = () => bed.emulator.log.filter((e) => e.path === '/api/v1/knowledge/1/files' && e.status === 200).length;
		const tasks = () => [...bed.emulator.taskProjects.tasks.values()].map((t) => t.taskTitle).filter((title) => title.startsWith('Knowledge ')).sort();
		const before = listed();
		await bed.server();
		const waitFor = (what: string, check: () => boolean) => until(what, () => (check() ? true : undefined), 180_000);
		// The activation poll records the files and starts nothing.
		await waitFor('the activation poll', () => listed() > before);
		const file = bed.emulator.knowledge.addFile(1, { originalName: 'versions.csv', mimetype: 'text/csv', content: 'v\n1\n' });
		bed.emulator.knowledge.setStatus(2, 'deleting');
		await waitFor('the tasks of the changes', () => tasks().length >= 2);
		expect(tasks()).toEqual([`Knowledge fileAdded ${file.id}`, 'Knowledge fileStatusChanged 2']);
		// One more poll: nothing new.
		const polled = listed();
		await waitFor('the next poll', () => listed() > polled);
		await new Promise((resolve) => setTimeout(resolve, 5_000));
		expect(tasks()).toHaveLength(2);
		console.log(`n8n ${version}: the knowledge trigger reported ${tasks().length} changes once each over ${listed() - before} polls`);
	});
});
