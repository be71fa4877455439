/**
 * The Workplace node as a tool of n8n's AI Agent (@n8n/n8n-nodes-langchain,
 * shipped in n8n): Manual Trigger → AI Agent, whose OpenAI Chat Model's Base
 * URL is the emulator's scripted OpenAI-compatible endpoint (emulator/
 * openAiCompatibleModel/chatCompletions.ts; no network, no model), and two Workplace tools whose parameters
 * the model fills through $fromAI(): User → Find by Username and Task → Create.
 *
 * The script answers like a model would: it reads the user's request and the
 * tool results in the conversation the agent sends, so the ids travel from
 * the emulator through n8n to the model and back. First turn: call the find
 * tool with the @username in the request; second: call the create tool with
 * the quoted title, assigned to the _id the find tool returned; third: a final
 * answer quoting the id of the task the create tool returned.
 *
 * The workflow runs with `n8n execute --id` (a Manual Trigger start).
 */
import { SEED_USER_IDS } from '../../emulator/bot/seed';
import { SCRIPTED_MODEL, messageText, type ChatCompletionRequest, type ScriptedTurn } from '../../emulator/openAiCompatibleModel/chatCompletions';
import { nodeOutput, type ExecuteResult } from '../../testbed/n8n';
import { e2eTestbed, scriptedOpenAiCredential } from '../lib/testbed';
import { BOT, TASKS, workplaceTool } from '../lib/workflows';

const WORKFLOW_ID = 'wpAiAgentE2eTool';
const FIND_TOOL = 'Find user by username';
const CREATE_TOOL = 'Create task';
const TITLE = 'Renew the TLS certificate of the intranet';
const USERNAME = 'nattaya.p';
const REQUEST = `Please create a task "${TITLE}" and assign it to @${USERNAME}.`;
const OPENAI_CREDENTIAL = { id: 'wpScriptedOpenAi1', name: 'Scripted model (emulator)' };

/** The name n8n gives a tool node's tool (nodeNameToToolName in n8n-workflow). */
const toolName = (nodeName: string) => nodeName.replace(/[^a-zA-Z0-9_-]+/g, '_');

/** JSON objects in a tool result: n8n hands the model the tool node's output items as JSON text. */
function resultObjects(content: string): Array<Record<string, unknown>> {
	const parsed = JSON.parse(content) as unknown;
	const list = Array.isArray(parsed) ? parsed : [parsed];
	return list.map((entry) => (entry && typeof entry === 'object' && 'json' in entry ? (entry as { json: Record<string, unknown> }).json : entry) as Record<string, unknown>);
}

/** The scripted model: decides each turn from the conversation it is sent. */
function script(request: ChatCompletionRequest): ScriptedTurn {
	const user = [...request.messages].reverse().find((m) => m.role === 'user');
	const asked = user ? messageText(user) : '';
	const results = request.messages.filter((m) => m.role === 'tool').map((m) => messageText(m));
	const offered = (request.tools ?? []).map((tool) => tool.function.name);
	for (const wanted of [FIND_TOOL, CREATE_TOOL]) {
		if (!offered.includes(toolName(wanted))) throw new Error(`tool ${toolName(wanted)} not offered (offered: ${offered.join(', ')})`);
	}
	if (results.length === 0) {
		const username = /@([\w.-]+[\w])/.exec(asked)?.[1];
		if (!username) return { content: 'Whom should the task be assigned to?' };
		return { toolCalls: [{ name: toolName(FIND_TOOL), arguments: { username } }] };
	}
	if (results.length === 1) {
		const user = resultObjects(results[0]).find((entry) => typeof entry._id === 'string');
		if (!user) return { content: `I found no user: ${results[0]}` };
		const title = /"([^"]+)"/.exec(asked)?.[1] ?? asked;
		return { toolCalls: [{ name: toolName(CREATE_TOOL), arguments: { title, assigneeId: user._id } }] };
	}
	const task = resultObjects(results[1]).find((entry) => entry.id !== undefined);
	return { content: task ? `Done: task ${String(task.id)} is assigned to ${USERNAME}.` : `The task was not created: ${results[1]}` };
}

const workflow = {
	id: WORKFLOW_ID,
	name: 'AI Agent with Workplace tools',
	nodes: [
		{
			parameters: {},
			id: 'b2c3d4e5-0000-4d66-8f1f-2e3b5c0a0701',
			name: 'Run',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
		},
		{
			parameters: {
				promptType: 'define',
				text: REQUEST,
				options: { systemMessage: 'You create tasks in the workplace service for the people named in requests.' },
			},
			id: 'b2c3d4e5-0000-4d66-8f1f-2e3b5c0a0702',
			name: 'AI Agent',
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: 3.1,
			position: [220, 0],
		},
		{
			// 1.2: Chat Completions (1.3 defaults to the Responses API).
			parameters: { model: { __rl: true, mode: 'id', value: SCRIPTED_MODEL }, options: {} },
			id: 'b2c3d4e5-0000-4d66-8f1f-2e3b5c0a0703',
			name: 'Scripted model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.2,
			position: [120, 220],
			credentials: { openAiApi: OPENAI_CREDENTIAL },
		},
		{
			...workplaceTool(FIND_TOOL, BOT, 'Look a workplace user up by username; returns the user with its _id', {
				resource: 'user',
				operation: 'findByUsername',
				username: "={{ $fromAI('username', 'The username, without the @', 'string') }}",
				options: { excludeDeleted: true, exactMatch: true },
			}),
			id: 'b2c3d4e5-0000-4d66-8f1f-2e3b5c0a0704',
			position: [320, 220],
		},
		{
			...workplaceTool(CREATE_TOOL, TASKS, 'Create a task in task projects, assigned to a user by _id; returns the task with its id', {
				resource: 'task',
				operation: 'create',
				taskTitle: "={{ $fromAI('title', 'The title of the task', 'string') }}",
				additionalFields: { assigneeId: "={{ $fromAI('assigneeId', 'The _id of the user the task is for', 'string') }}" },
			}),
			id: 'b2c3d4e5-0000-4d66-8f1f-2e3b5c0a0705',
			position: [520, 220],
		},
	],
	connections: {
		Run: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
		'Scripted model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
		[FIND_TOOL]: { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
		[CREATE_TOOL]: { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
};

// `n8n execute` needs no server.
const bed = e2eTestbed({
	credentials: ['workplaceBotApi', 'workplaceTaskProjectsApi', scriptedOpenAiCredential(OPENAI_CREDENTIAL)],
	workflows: [workflow],
	start: false,
});
let result: ExecuteResult;

beforeAll(async () => {
	bed.emulator.openAi.script = script;
	result = await bed.n8n.execute(WORKFLOW_ID);
});

test('the agent runs both Workplace tools with the parameters the model chose', () => {
	expect(result.data.resultData.error).toBeUndefined();
	// The model was asked three times and offered both tools, with the $fromAI parameters as their schema.
	const requests = bed.emulator.openAi.requests;
	expect(requests).toHaveLength(3);
	const tools = Object.fromEntries((requests[0].tools ?? []).map((tool) => [tool.function.name, JSON.stringify(tool.function.parameters)]));
	expect(Object.keys(tools).sort()).toEqual([toolName(CREATE_TOOL), toolName(FIND_TOOL)].sort());
	expect(tools[toolName(FIND_TOOL)]).toContain('"username"');
	expect(tools[toolName(CREATE_TOOL)]).toContain('"title"');
	expect(tools[toolName(CREATE_TOOL)]).toContain('"assigneeId"');

	// The emulator received the look-up with the username and the task with the title and the user's id.
	const lookups = bed.emulator.logFor('GET', '/bot/v1/users');
	expect(lookups).toHaveLength(1);
	expect(lookups[0].query).toMatchObject({ username: USERNAME });
	expect(lookups[0].status).toBe(200);
	const creates = bed.emulator.logFor('POST', '/api/v1/task-projects/tasks');
	expect(creates).toHaveLength(1);
	expect(creates[0].status).toBe(201);
	expect(creates[0].body).toMatchObject({ taskTitle: TITLE, assigneeId: SEED_USER_IDS.nattaya });
	const tasks = [...bed.emulator.taskProjects.tasks.values()].filter((task) => task.taskTitle === TITLE);
	expect(tasks).toHaveLength(1);
	expect(tasks[0].assigneeId).toBe(SEED_USER_IDS.nattaya);

	// The agent's answer carries the id of the task the emulator created.
	const [answer] = nodeOutput(result, 'AI Agent');
	expect(String(answer.output)).toContain(`task ${tasks[0].id} `);
	console.log(
		`AI agent: ${requests.length} model calls; GET /bot/v1/users?username=${String(lookups[0].query.username)}; ` +
			`POST tasks ${JSON.stringify(creates[0].body)} → ${tasks[0].id}; answer: ${String(answer.output)}`,
	);
});
