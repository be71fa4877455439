/**
 * Human review of an AI Agent's tool call in real n8n 2.41.1: n8n builds a
 * `…HitlTool` variant of every node with an operation `sendAndWait`
 * (packages/cli/src/tool-generation/hitl-tools.ts, applied by the node loader
 * to community packages too), so the Workplace node appears among the AI
 * Agent's human-review tools as `n8n-nodes-workplace.workplaceHitlTool`.
 *
 * Workflow: examples/ai-agent-task-approval.json (published, started by a
 * Webhook): an AI Agent whose scripted model (the emulator's OpenAI-compatible
 * endpoint) calls "Create task"; that tool is connected through "Ask the team
 * lead" (the Workplace HITL tool), so the call first posts an approval
 * question to the incident room and the execution waits. Approve → the agent runs Create task; decline → the agent is told
 * (n8n's processHitlResponses) and no task is created.
 */
import { randomUUID } from 'node:crypto';

import { SCRIPTED_MODEL, messageText, type ChatCompletionRequest, type ScriptedTurn } from '../../emulator/openAiCompatibleModel/chatCompletions';
import { answerByLink } from '../../testbed/answerPage';
import { exampleWorkflows } from '../../testbed/examples';
import { until } from '../../testbed/until';
import { clearMessageRecords, messageRecords } from '../lib/emulatorAdmin';
import { e2eTestbed, scriptedOpenAiCredential } from '../lib/testbed';

const WORKFLOW_ID = 'wpAiAgentReview01';
const TOOL = 'Create_task';
const OPENAI_CREDENTIAL = { id: 'wpScriptedOpenAi2', name: 'Scripted model (emulator)' };
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

/**
 * examples/ai-agent-task-approval.json as it ships, started by a Webhook
 * instead of its Manual Trigger (a waiting execution needs a published
 * workflow), its model pointed at the scripted endpoint and its prompt taken
 * from the request; the review layer and the tool are the example's own.
 */
function exampleWorkflow() {
	const example = exampleWorkflows().find((e) => e.file === 'ai-agent-task-approval.json');
	if (!example) throw new Error('examples/ai-agent-task-approval.json is missing');
	const source = example.workflow as unknown as { nodes: Array<Record<string, unknown> & { name: string; type: string; parameters: Record<string, unknown> }>; connections: Record<string, unknown> };
	const manual = source.nodes.find((n) => n.type === 'n8n-nodes-base.manualTrigger');
	if (!manual) throw new Error('the example has no Manual Trigger');
	const nodes = source.nodes.map((node) => {
		if (node === manual) return { parameters: { httpMethod: 'POST', path: 'agent-review', responseMode: 'onReceived', options: {} }, id: id(1), name: 'Start', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID() };
		if (node.type === '@n8n/n8n-nodes-langchain.lmChatOpenAi') return { ...node, parameters: { ...node.parameters, model: { __rl: true, mode: 'id', value: SCRIPTED_MODEL } }, credentials: { openAiApi: OPENAI_CREDENTIAL } };
		if (node.type === '@n8n/n8n-nodes-langchain.agent') return { ...node, parameters: { ...node.parameters, text: '={{ $json.body.request }}' } };
		return node;
	});
	const connections = { ...source.connections, Start: source.connections[manual.name] };
	delete (connections as Record<string, unknown>)[manual.name];
	return { id: WORKFLOW_ID, name: example.name, nodes, connections, settings: { executionOrder: 'v1' } };
}
const workflow = exampleWorkflow();

const bed = e2eTestbed({
	credentials: ['workplaceBotApi', 'workplaceTaskProjectsApi', scriptedOpenAiCredential(OPENAI_CREDENTIAL)],
	workflows: [workflow],
	publish: true,
});

beforeAll(() => {
	bed.emulator.openAi.script = script;
});

/** Asks the agent for a task; resolves with the waiting execution and the question's buttons. */
async function askAgent(title: string) {
	await clearMessageRecords(bed.emulator.url);
	const before = new Set((await bed.rest.executions(WORKFLOW_ID)).map((e) => e.id));
	const started = await fetch(`${bed.n8n.url}/webhook/agent-review`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ request: `Please create a task "${title}".` }) });
	expect(started.status).toBe(200);
	const execution = await until('the agent waiting for the review', async () => (await bed.rest.executions(WORKFLOW_ID)).find((e) => e.status === 'waiting' && !before.has(e.id)), 180_000);
	const [question] = await until('the review question', async () => {
		const messages = await messageRecords(bed.emulator.url);
		return messages.length > 0 ? messages : undefined;
	});
	const buttons = (question.messages?.at(-1) as { template: { text: string; actions: Array<{ label: string; linkUri: string }> } }).template;
	return { id: execution.id, buttons };
}

const tasksTitled = (title: string) => [...bed.emulator.taskProjects.tasks.values()].filter((task) => task.taskTitle === title);

test('n8n offers the Workplace node among the AI Agent\'s human-review tools', async () => {
	const types = await bed.rest.request<Array<{ name: string; subtitle?: string; outputs?: unknown }>>('GET', '/types/nodes.json');
	const review = types.find((t) => t.name === 'n8n-nodes-workplace.workplaceHitlTool');
	expect(review).toMatchObject({ subtitle: 'Send and wait', outputs: [{ displayName: 'Human review', type: 'ai_tool' }] });
});

test('approved in the chat\'s link: the gated tool runs and the agent reports the task', async () => {
	const title = 'Rotate the staging database password';
	const { id: executionId, buttons } = await askAgent(title);
	expect(buttons.text).toBe(`The assistant wants to create the task "${title}". Allow it?`);
	expect(buttons.actions.map((a) => a.label)).toEqual(['Allow', 'Refuse']);
	// Waiting for the person: nothing created yet.
	expect(tasksTitled(title)).toEqual([]);
	const allow = buttons.actions[0].linkUri;
	expect((await fetch(allow)).status).toBe(200);
	// Confirmed on the link's page, as the person does (the page's form carries its token).
	expect((await answerByLink(allow)).status).toBe(200);
	const execution = await bed.rest.ended(executionId, 180_000);
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
	expect((await answerByLink(refuse)).status).toBe(200);
	const execution = await bed.rest.ended(executionId, 180_000);
	expect(execution.status).toBe('success');
	expect(tasksTitled(title)).toEqual([]);
	const answer = execution.data.resultData.runData['AI Agent']?.at(-1)?.data?.main[0]?.[0]?.json;
	expect(String(answer?.output)).toMatch(/^Not created: .*User rejected the tool call to Create task \(id: /);
});
