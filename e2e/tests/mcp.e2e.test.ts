/**
 * The Workplace node behind n8n's MCP Server Trigger
 * (@n8n/n8n-nodes-langchain.mcpTrigger, shipped in n8n 2.41.1): any MCP
 * client (a desktop assistant, an IDE) reaches the Workplace operations a
 * workflow exposes as tools. The workflow is examples/mcp-server-tools.json as
 * it ships, published: MCP Server Trigger (Bearer auth) ← Find user by
 * username, Create task (the node as `workplaceTool`, parameters from
 * `$fromAI()`, which an MCP client fills as the tool's arguments).
 *
 * The client is the official TypeScript SDK's (@modelcontextprotocol/sdk, a
 * devDependency of e2e/) over Streamable HTTP: it connects to the trigger's
 * production URL, lists the tools and calls them; the emulator must have seen
 * each request, and the answers must carry what the emulator made.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { SEED_USER_IDS } from '../../emulator/bot/seed';
import { EXAMPLE_MCP_CREDENTIAL, exampleWorkflows } from '../../testbed/examples';
import { mcpServerUrl } from '../../testbed/n8nWebhooks';
import { e2eTestbed } from '../lib/testbed';

const example = exampleWorkflows().find((e) => e.file === 'mcp-server-tools.json');
if (!example) throw new Error('examples/mcp-server-tools.json is missing');
const TOKEN = String(EXAMPLE_MCP_CREDENTIAL.data.token);

const bed = e2eTestbed({
	credentials: ['workplaceBotApi', 'workplaceTaskProjectsApi', () => EXAMPLE_MCP_CREDENTIAL],
	workflows: [example.workflow],
	publish: true,
});

/** An MCP client connected to the example's server (Streamable HTTP), with the given Bearer token (null: none). */
async function connect(token: string | null = TOKEN): Promise<Client> {
	const client = new Client({ name: 'workplace-e2e', version: '1.0.0' });
	const transport = new StreamableHTTPClientTransport(new URL(mcpServerUrl(bed.url, example!.workflow)), {
		requestInit: { headers: token === null ? {} : { authorization: `Bearer ${token}` } },
	});
	await client.connect(transport);
	return client;
}

/** The JSON a tool call answered with (n8n hands the tool node's output items back as JSON text). */
function answerOf(result: Awaited<ReturnType<Client['callTool']>>): unknown {
	const content = result.content as Array<{ type: string; text?: string }>;
	expect(content.map((c) => c.type)).toEqual(['text']);
	return JSON.parse(String(content[0].text));
}

/** The first object of a tool's answer, whether n8n sent an item, a list of items or the object itself. */
function firstObject(answer: unknown): Record<string, unknown> {
	const first = (Array.isArray(answer) ? answer[0] : answer) as Record<string, unknown>;
	return (first && typeof first.json === 'object' ? first.json : first) as Record<string, unknown>;
}

let client: Client;

beforeAll(async () => {
	client = await connect();
});

afterAll(async () => {
	await client?.close();
});

test('a client with a wrong Bearer token, or none, is refused', async () => {
	const attempt = async (token: string | null) =>
		await connect(token).then(
			async (connected) => {
				await connected.close();
				return 'connected';
			},
			(error: unknown) => String(error),
		);
	const wrong = await attempt('not-the-token');
	const none = await attempt(null);
	console.log(`MCP clients refused: wrong token → ${wrong}; no token → ${none}`);
	expect(wrong).toMatch(/Authorization data is wrong/);
	expect(none).toMatch(/Authorization data is wrong/);
});

test('the client lists the Workplace operations as tools, with the arguments $fromAI() asks for', async () => {
	const { tools } = await client.listTools();
	const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
	expect(Object.keys(byName).sort()).toEqual(['Create_task', 'Find_user_by_username']);
	expect(byName.Find_user_by_username.description).toBe('Look a workplace user up by username (without the @); returns the user with its id');
	expect(Object.keys(byName.Find_user_by_username.inputSchema.properties ?? {})).toEqual(['username']);
	expect(Object.keys(byName.Create_task.inputSchema.properties ?? {}).sort()).toEqual(['assigneeId', 'title']);
	console.log(`MCP tools: ${JSON.stringify(tools.map((tool) => ({ name: tool.name, description: tool.description, arguments: tool.inputSchema.properties })))}`);
});

test('Find user by username, then Create task for that user: the emulator did both, and the answers say what it made', async () => {
	bed.emulator.clearLog();
	const found = await client.callTool({ name: 'Find_user_by_username', arguments: { username: 'nattaya.p' } });
	expect(found.isError).toBeFalsy();
	const user = firstObject(answerOf(found));
	expect(user).toMatchObject({ id: SEED_USER_IDS.nattaya, username: 'nattaya.p' });
	const lookups = bed.emulator.logFor('GET', '/bot/v1/users');
	expect(lookups).toHaveLength(1);
	expect(lookups[0]).toMatchObject({ status: 200, query: { username: 'nattaya.p' } });

	const title = 'Renew the TLS certificate of the intranet (asked over MCP)';
	const created = await client.callTool({ name: 'Create_task', arguments: { title, assigneeId: user.id } });
	expect(created.isError).toBeFalsy();
	const task = firstObject(answerOf(created));
	const tasks = [...bed.emulator.taskProjects.tasks.values()].filter((t) => t.taskTitle === title);
	expect(tasks).toHaveLength(1);
	expect(tasks[0].assigneeId).toBe(SEED_USER_IDS.nattaya);
	expect(task).toMatchObject({ id: tasks[0].id });
	const creates = bed.emulator.logFor('POST', '/api/v1/task-projects/tasks');
	expect(creates).toHaveLength(1);
	expect(creates[0]).toMatchObject({ status: 201, body: { taskTitle: title, assigneeId: SEED_USER_IDS.nattaya } });
	console.log(`MCP calls: Find_user_by_username {"username":"nattaya.p"} → ${JSON.stringify(user)}; Create_task ${JSON.stringify({ title, assigneeId: user.id })} → ${JSON.stringify(task)}`);

	// n8n recorded each tool call as an execution of the workflow; no secret in what it printed.
	const executions = await bed.executionsEnded(example!.id, 2);
	expect(executions.map((e) => e.status)).toEqual(['success', 'success']);
	const printed = bed.printed();
	for (const secret of [bed.emulator.credentials.clientSecret, bed.emulator.credentials.jwt, TOKEN]) expect(printed).not.toContain(secret);
});
