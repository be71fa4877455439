/**
 * Human review of an AI Agent's tool call in real n8n 2.41.1: n8n builds a
 * `…HitlTool` variant of every node with an operation `sendAndWait`
 * (packages/cli/src/tool-generation/hitl-tools.ts, applied by the node loader
 * to community packages too), so the Workplace node appears among the AI
 * Agent's human-review tools as `n8n-nodes-workplace.workplaceHitlTool`.
 *
 * Workflow (published): Webhook → AI Agent, whose scripted model (the
 * emulator's OpenAI-compatible endpoint) calls "Create task"; that tool is
 * connected through "Ask the team lead" (the Workplace HITL tool), so the
 * call first posts an approval question to the Alerts topic and the execution
 * waits. Approve → the agent runs Create task; decline → the agent is told
 * (n8n's processHitlResponses) and no task is created.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS } from '../../emulator/botSeed';
import type { MessageRecord } from '../../emulator/messaging/state';
import { SCRIPTED_MODEL, messageText, type ChatCompletionRequest, type ScriptedTurn } from '../../emulator/routes/openai';
import { startEmulator, type Emulator } from '../../emulator/server';
import { EXAMPLE_CREDENTIALS, exampleCredential } from '../lib/examples';
import { N8n, N8nRest, installCommunityPackage, until } from '../lib/n8n';

const WORKFLOW_ID = 'wpAiAgentReview01';
const CREATE_TOOL = 'Create task';
const TOOL = 'Create_task';
const OPENAI_CREDENTIAL = { id: 'wpScriptedOpenAi2', name: 'Scripted model (emulator)' };
const ALERTS = { gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts };
const id = (n: number) => `c3d4e5f6-0000-4d66-8f1f-2e3b5c0a08${String(n).padStart(2, '0')}`;

/** The scripted model: asks for the task named in the request; then reports what the tool said. */
function script(request: ChatCompletionRequest): ScriptedTurn {
	const asked = messageText([...request.messages].reverse().find((m) => m.role === 'user') ?? { role: 'user', content: '' });
	const results = request.messages.filter((m) => m.role === 'tool').map((m) => messageText(m));
	const offered = (request.tools ?? []).map((tool) => tool.function.name);
	if (!offered.includes(TOOL)) throw new Error(`tool ${TOOL} not offered (offered: ${offered.join(', ')})`);
	if (results.length === 0) {
		const title = /"([^"]+)"/.exec(asked)?.[1] ?? asked;
		// A gated tool's arguments: the tool's own under toolParameters, the review layer's under hitlParameters.
		return { toolCalls: [{ name: TOOL, arguments: { toolParameters: { title }, hitlParameters: {} } }] };
	}
	const task = /"id":\s*"?([\w-]+)"?/.exec(results[0])?.[1];
	return { content: task && !/rejected/i.test(results[0]) ? `Done: task ${task} created.` : `Not created: ${results[0]}` };
}

const workflow = {
	id: WORKFLOW_ID,
	name: 'AI Agent whose task creation a person approves',
	nodes: [
		{ parameters: { httpMethod: 'POST', path: 'agent-review', responseMode: 'onReceived', options: {} }, id: id(1), name: 'Start', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID() },
		{
			parameters: { promptType: 'define', text: '={{ $json.body.request }}', options: { systemMessage: 'You create tasks in the workplace service.' } },
			id: id(2),
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [220, 0],
		},
		{
			parameters: { model: { __rl: true, mode: 'id', value: SCRIPTED_MODEL }, options: {} },
			id: id(3),
			name: 'Scripted model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.2,
			position: [120, 220],
			credentials: { openAiApi: OPENAI_CREDENTIAL },
		},
		{
			parameters: {
				resource: 'message',
				operation: 'sendAndWait',
				sendTo: 'group',
				groupId: { __rl: true, mode: 'id', value: ALERTS.gid },
				topicId: { __rl: true, mode: 'id', value: ALERTS.tid },
				message: '=The assistant wants to create the task "{{ $tool.parameters.title }}". Allow it?',
				approvalOptions: { values: { approvalType: 'double', approveLabel: 'Allow', disapproveLabel: 'Refuse' } },
			},
			id: id(4),
			name: 'Ask the team lead',
			type: 'n8n-nodes-workplace.workplaceHitlTool',
			typeVersion: 2,
			position: [320, 220],
			credentials: { workplaceBotApi: EXAMPLE_CREDENTIALS.workplaceBotApi },
		},
		{
			parameters: {
				descriptionType: 'manual',
				toolDescription: 'Create a task in task projects; returns the task with its id',
				resource: 'task',
				operation: 'create',
				taskTitle: "={{ $fromAI('title', 'The title of the task', 'string') }}",
				additionalFields: {},
			},
			id: id(5),
			name: CREATE_TOOL,
			type: 'n8n-nodes-workplace.workplaceTool',
			typeVersion: 1,
			position: [520, 360],
			credentials: { workplaceTaskProjectsApi: EXAMPLE_CREDENTIALS.workplaceTaskProjectsApi },
		},
	],
	connections: {
		Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
		'Scripted model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
		'Ask the team lead': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
		[CREATE_TOOL]: { ai_tool: [[{ node: 'Ask the team lead', type: 'ai_tool', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

let emulator: Emulator;
let n8n: N8n;
let rest: N8nRest;

beforeAll(async () => {
	emulator = await startEmulator();
	emulator.openAi.script = script;
	n8n = new N8n({ echo: process.env.E2E_ECHO ? process.stderr : undefined });
	await installCommunityPackage(n8n.userFolder);
	await n8n.importCredentials([
		exampleCredential(emulator, 'workplaceBotApi'),
		exampleCredential(emulator, 'workplaceTaskProjectsApi'),
		{ ...OPENAI_CREDENTIAL, type: 'openAiApi', data: { apiKey: emulator.credentials.apiKey, url: `${emulator.url}/v1` } },
	]);
	await n8n.importWorkflows([workflow]);
	await n8n.cli(['publish:workflow', `--id=${WORKFLOW_ID}`]);
	await n8n.start();
	rest = new N8nRest(n8n.url);
	await rest.setupOwner();
	await rest.login();
});

afterAll(async () => {
	await n8n?.stop().catch(() => undefined);
	await emulator?.close().catch(() => undefined);
	if (n8n) rmSync(n8n.userFolder, { recursive: true, force: true });
});

/** Asks the agent for a task; resolves with the waiting execution and the question's buttons. */
async function askAgent(title: string) {
	await fetch(`${emulator.url}/__emulator/messages`, { method: 'DELETE' });
	const before = new Set((await rest.executions(WORKFLOW_ID)).map((e) => e.id));
	const started = await fetch(`${n8n.url}/webhook/agent-review`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request: `Please create a task "${title}".` }) });
	expect(started.status).toBe(200);
	const execution = await until('the agent waiting for the review', async () => (await rest.executions(WORKFLOW_ID)).find((e) => e.status === 'waiting' && !before.has(e.id)), 180_000);
	const [question] = await until('the review question', async () => {
		const list = (await (await fetch(`${emulator.url}/__emulator/messages`)).json()) as { messages: MessageRecord[] };
		return list.messages.length > 0 ? list.messages : undefined;
	});
	const buttons = (question.messages?.at(-1) as { template: { text: string; actions: Array<{ label: string; linkUri: string }> } }).template;
	return { id: execution.id, buttons };
}

async function ended(executionId: string) {
	return await until(`execution ${executionId} to end`, async () => {
		const execution = await rest.execution(executionId);
		return ['new', 'running', 'waiting'].includes(execution.status) ? undefined : execution;
	}, 180_000);
}

const tasksTitled = (title: string) => [...emulator.taskProjects.tasks.values()].filter((task) => task.taskTitle === title);

test('approved in the chat\'s link: the gated tool runs and the agent reports the task', async () => {
	const title = 'Rotate the staging database password';
	const { id: executionId, buttons } = await askAgent(title);
	expect(buttons.text).toBe(`The assistant wants to create the task "${title}". Allow it?`);
	expect(buttons.actions.map((a) => a.label)).toEqual(['Allow', 'Refuse']);
	// Waiting for the person: nothing created yet.
	expect(tasksTitled(title)).toEqual([]);
	const allow = buttons.actions[0].linkUri;
	expect((await fetch(allow)).status).toBe(200);
	expect((await fetch(allow, { method: 'POST' })).status).toBe(200);
	const execution = await ended(executionId);
	expect(execution.status).toBe('success');
	const tasks = tasksTitled(title);
	expect(tasks).toHaveLength(1);
	const answer = execution.data.resultData.runData['AI Agent']?.at(-1)?.data?.main[0]?.[0]?.json;
	expect(String(answer?.output)).toBe(`Done: task ${tasks[0].id} created.`);
});

test('refused: the agent is told, and the tool never runs', async () => {
	const title = 'Delete the production cluster';
	const { id: executionId, buttons } = await askAgent(title);
	const refuse = buttons.actions[1].linkUri;
	expect((await fetch(refuse, { method: 'POST' })).status).toBe(200);
	const execution = await ended(executionId);
	expect(execution.status).toBe('success');
	expect(tasksTitled(title)).toEqual([]);
	const answer = execution.data.resultData.runData['AI Agent']?.at(-1)?.data?.main[0]?.[0]?.json;
	expect(String(answer?.output)).toMatch(/^Not created: .*User rejected the tool call to Create_task/);
});
