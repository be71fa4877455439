/**
 * `npm run dev` without a terminal: build/scripts/dev.js on a temp user folder
 * and free ports, twice on the same folder (the second run finds the owner,
 * the credentials and the workflows already there). Each run must print its
 * ready line, leave a working editor with the package's nodes, the three
 * credentials and every example, never print a secret, and on SIGINT stop
 * n8n, its task runner and the emulator and exit 0. The emulator's play page
 * is wired to the examples' Workplace Trigger: an event played there reaches
 * the active workflow and its reply lands in the emulator's records.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { DEV_CREDENTIALS } from '../../emulator/main';
import type { MessageRecord } from '../../emulator/bot/state';
import { EXAMPLE_MCP_CREDENTIAL, exampleWorkflows } from '../../testbed/examples';
import { N8nRest, OWNER, freePort, processTree } from '../../testbed/n8n';
import { ROOT } from '../../testbed/root';
import { mcpServerUrl, productionWebhookUrl, waitForTriggerWebhook } from '../../testbed/n8nWebhooks';
import { until } from '../../testbed/until';

const userFolder = mkdtempSync(path.join(os.tmpdir(), 'workplace-dev-'));
afterAll(() => rmSync(userFolder, { recursive: true, force: true }));

interface DevRun {
	child: ChildProcess;
	output: () => string;
	n8nPort: number;
	emulatorPort: number;
}

async function startDev(): Promise<DevRun> {
	const n8nPort = await freePort();
	const emulatorPort = await freePort();
	// The play page's webhook must be dev's own choice here, whatever the caller's shell says.
	const { WEBHOOK_URL, ...env } = process.env;
	void WEBHOOK_URL;
	const child = spawn(process.execPath, [path.join(ROOT, 'build', 'scripts', 'dev.js')], {
		cwd: ROOT,
		env: { ...env, WORKPLACE_DEV_FOLDER: userFolder, N8N_PORT: String(n8nPort), EMULATOR_PORT: String(emulatorPort) },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let text = '';
	child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
	const run = { child, output: () => text, n8nPort, emulatorPort };
	// The ready summary arrives in several writes, and a pipe reader may see its first line
	// ("Ready: ...") before the rest: wait for its last line.
	await until('the whole ready summary of dev.js', () => (/^Ctrl-C stops n8n and the emulator\.$/m.test(text) ? true : undefined), 300_000, {
		everyMs: 250,
		process: { name: 'dev.js', child, output: run.output },
	});
	return run;
}

const alive = (pid: number) => {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
};

const portFree = async (port: number) =>
	await new Promise<boolean>((resolve) => {
		const server = createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});

async function interrupt(run: DevRun): Promise<{ code: number | null; tree: number[] }> {
	// dev.js and what it started (n8n start, its task runner), listed before they stop.
	const tree = processTree(run.child.pid as number);
	const exited = new Promise<number | null>((resolve) => run.child.once('exit', (code) => resolve(code)));
	run.child.kill('SIGINT');
	return { code: await exited, tree };
}

async function checkEditor(run: DevRun): Promise<void> {
	const url = `http://localhost:${run.n8nPort}`;
	expect(run.output()).toContain(`Ready: the n8n editor is at ${url}`);
	expect(run.output()).toContain(`Login:       ${OWNER.email} / ${OWNER.password}`);
	for (const secret of [DEV_CREDENTIALS.apiKey, DEV_CREDENTIALS.clientSecret, DEV_CREDENTIALS.jwtSecret, 'eyJ']) {
		expect(run.output()).not.toContain(secret);
	}

	const editor = await fetch(url);
	expect(editor.status).toBe(200);
	expect(await editor.text()).toContain('<title>n8n.io');

	const rest = new N8nRest(url);
	await rest.login();
	const credentials = await rest.request<Array<{ id: string; type: string }>>('GET', '/rest/credentials');
	expect(credentials.map((c) => `${c.id} ${c.type}`).sort()).toEqual([
		'workplace-bot workplaceBotApi',
		'workplace-kb workplaceKnowledgeBaseApi',
		'workplace-mcp httpBearerAuth',
		'workplace-tasks workplaceTaskProjectsApi',
	]);
	const workflows = await rest.request<Array<{ id: string; name: string }>>('GET', '/rest/workflows');
	const examples = exampleWorkflows();
	expect(examples.length).toBeGreaterThanOrEqual(4);
	expect(workflows.map((w) => `${w.id} ${w.name}`).sort()).toEqual(examples.map((e) => `${e.id} ${e.name}`).sort());
	for (const example of examples) expect(run.output()).toContain(`${url}/workflow/${example.id}`);

	const nodeTypes = await rest.request<Array<{ name: string }>>('GET', '/types/nodes.json');
	const ours = new Set(nodeTypes.map((t) => t.name).filter((name) => name.startsWith('n8n-nodes-workplace.')));
	// workplaceHitlTool: n8n's human-review variant of a node with a sendAndWait operation.
	expect([...ours].sort()).toEqual([
		'n8n-nodes-workplace.workplace',
		'n8n-nodes-workplace.workplaceHitlTool',
		'n8n-nodes-workplace.workplaceKnowledgeTrigger',
		'n8n-nodes-workplace.workplaceTool',
		'n8n-nodes-workplace.workplaceTrigger',
	]);

	// Each stored credential passes its test against the emulator this run started, as the
	// editor tests it: the stored data comes back redacted and n8n fills the secrets in.
	for (const { id } of credentials.filter((c) => c.type.startsWith('workplace'))) {
		const stored = await rest.request<{ id: string; name: string; type: string; data: Record<string, unknown> }>('GET', `/rest/credentials/${id}?includeData=true`);
		expect(stored.data.baseUrl).toBe(`http://127.0.0.1:${run.emulatorPort}`);
		expect(JSON.stringify(stored)).not.toContain(DEV_CREDENTIALS.apiKey);
		const test = await rest.request<{ status: string; message: string }>('POST', '/rest/credentials/test', {
			credentials: { id: stored.id, name: stored.name, type: stored.type, data: stored.data },
		});
		expect(`${id}: ${test.status} ${test.message}`).toMatch(new RegExp(`^${id}: OK`));
	}
}

/**
 * The play page as a newcomer uses it: it names the trigger example's production
 * webhook URL, and its "Send message" (POST /__emulator/events, the URL left to
 * the page's default) reaches the active workflow, whose reply shows in the records.
 */
async function checkPlayPage(run: DevRun): Promise<void> {
	const emulatorUrl = `http://127.0.0.1:${run.emulatorPort}`;
	const example = exampleWorkflows().find((e) => e.file === 'bot-answers.json');
	if (!example) throw new Error('no examples/bot-answers.json');
	const webhookUrl = productionWebhookUrl(`http://localhost:${run.n8nPort}`, example.workflow);
	expect(run.output()).toContain(`Play a user: ${emulatorUrl}/__emulator/`);
	// The MCP example is published: its URL printed with the header a client sends, and registered.
	const mcp = exampleWorkflows().find((e) => e.file === 'mcp-server-tools.json');
	if (!mcp) throw new Error('no examples/mcp-server-tools.json');
	const mcpUrl = mcpServerUrl(`http://localhost:${run.n8nPort}`, mcp.workflow);
	expect(run.output()).toContain(`MCP server:  ${mcpUrl}  `);
	expect(run.output()).toContain(`Authorization: Bearer ${String(EXAMPLE_MCP_CREDENTIAL.data.token)}`);
	await waitForTriggerWebhook(mcpUrl, 10_000);
	expect(run.output()).toContain(webhookUrl);

	const page = await fetch(`${emulatorUrl}/__emulator/`);
	expect(page.status).toBe(200);
	expect(await page.text()).toContain(`value="${webhookUrl}"`);

	const text = `Hello from the play page ${Date.now()}`;
	const played = await fetch(`${emulatorUrl}/__emulator/events`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ type: 'message', text }),
	});
	const delivery = (await played.json()) as { status: number; body: unknown; replyToken: string; event: { source: { uid: string } } };
	expect({ played: played.status, webhook: delivery.status, answer: delivery.body }).toEqual({
		played: 200,
		webhook: 200,
		answer: { received: 1, accepted: 1 },
	});

	// The workflow runs after the webhook's answer: wait for its reply.
	const reply = await until('the reply with the delivered token', async () => {
		const { messages } = (await (await fetch(`${emulatorUrl}/__emulator/messages`)).json()) as { messages: MessageRecord[] };
		return messages.find((m) => m.target.replyToken === delivery.replyToken);
	}, 120_000);
	expect(reply.route).toBe('POST /bot/v1/message/quickreply');
	expect(reply.target.uid).toBe(delivery.event.source.uid);
	expect(reply.text).toBe(`You said “${text}”. How can I help?`);
}

async function checkStopped(run: DevRun): Promise<void> {
	const { code, tree } = await interrupt(run);
	expect(code).toBe(0);
	expect(tree.length).toBeGreaterThanOrEqual(2); // dev.js and n8n start at least
	expect(tree.filter(alive)).toEqual([]);
	expect(await portFree(run.n8nPort)).toBe(true);
	expect(await portFree(run.emulatorPort)).toBe(true);
	expect(run.output()).toContain('SIGINT: stopping n8n and the emulator');
}

let current: DevRun | undefined;
afterEach(async () => {
	if (current && current.child.exitCode === null) await interrupt(current);
	current = undefined;
});

it('first run: sets the owner up and leaves a working editor wired to the play page; SIGINT stops everything', async () => {
	current = await startDev();
	await checkEditor(current);
	await checkPlayPage(current);
	await checkStopped(current);
});

it('second run on the same folder: the owner logs in, nothing is duplicated, the play page still reaches the workflow', async () => {
	current = await startDev();
	await checkEditor(current);
	await checkPlayPage(current);
	await checkStopped(current);
});
