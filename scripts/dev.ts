/**
 * `npm run dev`: the package in a real n8n editor. Starts the emulator (fixed
 * dev credentials, 127.0.0.1:8787, as `npm run emulator`), installs the built
 * package into the user folder .n8n-dev/ the way n8n installs a community
 * package, imports a credential of every type pointing at the emulator and the
 * example workflows, publishes (activates) the examples that start from the
 * Workplace Trigger or the MCP Server Trigger (with the example MCP clients'
 * Bearer credential), starts `n8n start`, sets the owner account up on the first
 * run, prints the editor's URL and login, and waits. Ctrl-C stops n8n and the
 * emulator.
 *
 * The emulator's play page (/__emulator/) delivers signed bot events to one of
 * those examples' production webhook URL (WEBHOOK_URL overrides it), so a
 * newcomer presses "Send message" there and watches the workflow answer; a
 * click on a button the bot sent taps it as a phone would (emulator/bot/tap.ts).
 *
 * Every step that can take a while prints a line at least every 15 s, and the
 * closing lines say how long each step took, the install steps dev.sh timed
 * (WORKPLACE_PHASES_FILE) included.
 *
 * Environment: N8N_PORT (default 5678), EMULATOR_PORT (default PORT or 8787),
 * WORKPLACE_DEV_FOLDER (default <repo>/.n8n-dev), and the emulator's own
 * variables (see emulator/main.ts).
 */
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';

import { removeTempFolders } from '../emulator/common/tempFolders';
import { optionsFromEnv } from '../emulator/main';
import { startEmulator, type Emulator } from '../emulator/server';
import { EXAMPLE_MCP_CREDENTIAL, exampleCredentials, exampleMcpTrigger, exampleTrigger, exampleWorkflows, type ExampleWorkflow } from '../testbed/examples';
import { N8n, N8nRest, OWNER, freePort, installCommunityPackage } from '../testbed/n8n';
import { ROOT } from '../testbed/root';
import { mcpServerUrl, productionWebhookUrl, waitForTriggerWebhook } from '../testbed/n8nWebhooks';

/** The example the play page delivers to, when it is there; else the first one with a Workplace Trigger. */
const PLAY_EXAMPLE = 'bot-answers.json';

const say = (line = '') => process.stdout.write(`${line}\n`);

/**
 * n8n as dev runs it, offline: nothing in its log that looks like a failure
 * when nothing failed. No MCP server registry and no catalogue of verified
 * community nodes (each fetched from n8n's servers, out of reach here, with a
 * stack trace logged when it fails: the catalogue's as the editor opens), no
 * Python task runner (absent here, and logged as failing to start), and the
 * settings whose defaults will change set to today's values (otherwise listed
 * as deprecations at start).
 * Two notices remain, which withoutNotices drops from dev's copy of the log.
 */
const QUIET_OFFLINE: Record<string, string> = {
	N8N_DISABLED_MODULES: 'mcp-registry',
	N8N_PYTHON_ENABLED: 'false',
	N8N_VERIFIED_PACKAGES_ENABLED: 'false',
	N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
	N8N_RUNNERS_TASK_TIMEOUT: '300',
	N8N_COMPRESSION_NODE_MAX_ZIP_ENTRIES: '5000',
	N8N_COMPRESSION_NODE_MAX_DECOMPRESSED_SIZE_BYTES: String(2 * 1024 ** 3),
};

/**
 * Warnings n8n 2.41 logs at every start in internal task runner mode, with no
 * setting to turn them off: no Python runner (Python is not installed here, and
 * N8N_PYTHON_ENABLED=false does not stop the check), and that internal mode is
 * deprecated (the external mode needs a separate launcher process).
 */
const HARMLESS_NOTICES = [
	/Failed to start Python task runner in internal mode/,
	/There is a deprecation related to your n8n setup/,
	/N8N_RUNNERS_MODE -> Internal task runner mode is deprecated/,
];

/** A log file that leaves out HARMLESS_NOTICES (n8n's output arrives in chunks of whole lines). */
function withoutNotices(file: string): NodeJS.WritableStream {
	const log = createWriteStream(file, { flags: 'a' });
	return new Writable({
		write(chunk: Buffer, _encoding, done) {
			const kept = chunk
				.toString()
				.split(/(?<=\n)/)
				.filter((line) => !HARMLESS_NOTICES.some((notice) => notice.test(line)))
				.join('');
			if (kept === '') done();
			else log.write(kept, done);
		},
		final(done) {
			log.end(done);
		},
	});
}

/** "45 s", "3 min 05 s" (as scripts/progress.sh). */
function humanTime(seconds: number): string {
	const s = Math.round(seconds);
	return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

/** The steps dev.sh and with-node24.sh timed before this script started ("name=seconds" lines); the file is removed. */
function timedBefore(): Array<[string, number]> {
	const file = process.env.WORKPLACE_PHASES_FILE;
	if (!file || !existsSync(file)) return [];
	const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
	rmSync(file, { force: true });
	return lines.map((line) => {
		const at = line.lastIndexOf('=');
		return [line.slice(0, at), Number(line.slice(at + 1))] as [string, number];
	});
}

const phases: Array<[string, number]> = timedBefore();

/** Runs one step (`what` says it; `name` in the summary), saying it is still under way every 15 s, and records how long it took. */
async function step<T>(name: string, what: string, run: () => Promise<T>): Promise<T> {
	const started = Date.now();
	say(`${what}…`);
	const ticker = setInterval(() => say(`  ${name}: ${humanTime((Date.now() - started) / 1000)} so far`), 15_000);
	try {
		return await run();
	} finally {
		clearInterval(ticker);
		phases.push([name, (Date.now() - started) / 1000]);
	}
}

/** How long each step took, and all of them from `npm run dev` on. */
function phaseSummary(): string[] {
	const started = Number(process.env.WORKPLACE_STARTED);
	const total = Number.isFinite(started) && started > 0 ? Date.now() / 1000 - started : phases.reduce((sum, [, s]) => sum + s, 0);
	const width = Math.max(...phases.map(([name]) => name.length));
	return [`Set-up took ${humanTime(total)} from \`npm run dev\` on:`, ...phases.map(([name, s]) => `  ${name.padEnd(width)}  ${humanTime(s)}`)];
}

function portEnv(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const port = Number(raw);
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got ${raw}`);
	return port;
}

/** The examples that start from the Workplace Trigger (they run when published), the play page's first. */
function triggerExamples(examples: ExampleWorkflow[]): ExampleWorkflow[] {
	const withTrigger = examples.filter((example) => exampleTrigger(example.workflow));
	return [...withTrigger.filter((e) => e.file === PLAY_EXAMPLE), ...withTrigger.filter((e) => e.file !== PLAY_EXAMPLE)];
}

async function main(): Promise<void> {
	const userFolder = path.resolve(process.env.WORKPLACE_DEV_FOLDER || path.join(ROOT, '.n8n-dev'));
	// A port known beforehand: the play page's webhook URL names it before n8n starts.
	const n8nPort = portEnv('N8N_PORT', 5678) || (await freePort());
	mkdirSync(userFolder, { recursive: true });
	const logFile = path.join(userFolder, 'n8n.log');

	let emulator: Emulator | undefined;
	let n8n: N8n | undefined;
	let stopping = false;
	const stop = async (code: number) => {
		if (stopping) return;
		stopping = true;
		await n8n?.stop();
		await emulator?.close();
		// The emulator's folder, also when a Ctrl-C came while it was starting (no emulator to close yet).
		removeTempFolders();
		process.exit(code);
	};
	for (const signal of ['SIGINT', 'SIGTERM'] as const) {
		process.on(signal, () => {
			say(`\n${signal}: stopping n8n and the emulator…`);
			void stop(0);
		});
	}

	try {
		const workflows = exampleWorkflows();
		const triggered = triggerExamples(workflows);
		// n8n.url's form, known before it starts.
		const n8nUrl = `http://localhost:${n8nPort}`;
		const webhooks = triggered.map((example) => ({ example, url: productionWebhookUrl(n8nUrl, example.workflow) }));
		// The examples an MCP client connects to (published too).
		const mcpServers = workflows.filter((example) => exampleMcpTrigger(example.workflow)).map((example) => ({ example, url: mcpServerUrl(n8nUrl, example.workflow) }));
		const published = [...webhooks, ...mcpServers];

		const emulatorOptions = optionsFromEnv();
		const started = await startEmulator({
			...emulatorOptions,
			port: portEnv('EMULATOR_PORT', emulatorOptions.port ?? 8787),
			webhookUrl: emulatorOptions.webhookUrl ?? webhooks[0]?.url,
		});
		emulator = started;
		say(`Emulator:  ${started.url}`);

		const server = new N8n({ userFolder, echo: withoutNotices(logFile), env: QUIET_OFFLINE });
		n8n = server;
		await step('install the package into n8n', `Installing the package into ${path.relative(process.cwd(), userFolder) || '.'}/.n8n/nodes (as n8n installs a community package)`, () =>
			installCommunityPackage(userFolder),
		);
		const credentials = exampleCredentials(started);
		const imports = [...credentials, EXAMPLE_MCP_CREDENTIAL];
		// Each n8n CLI command starts n8n once: import and publish only what changed since the last run.
		// The emulator issues the JWT afresh at every start (valid 30 days): it is left out of the
		// comparison, and everything is imported again after a week, long before a stored one expires.
		const imported = path.join(userFolder, '.workplace-imported');
		const week = Math.floor(Date.now() / (7 * 24 * 3600 * 1000));
		const stable = imports.map((c) => ({ ...c, data: { ...c.data, token: undefined } }));
		const fingerprint = createHash('sha256')
			.update(JSON.stringify([week, stable, workflows, published.map(({ example }) => example.id)]))
			.digest('hex');
		if (existsSync(imported) && readFileSync(imported, 'utf8') === fingerprint) {
			say('The credentials and example workflows are as the last run imported them: not imported again.');
		} else {
			await step('import credentials and examples', 'Importing the credentials and the example workflows', async () => {
				await server.importCredentials(imports);
				await server.importWorkflows(workflows.map((example) => example.workflow));
				// 2.x: publishing replaces activation; n8n activates published workflows as it starts.
				for (const { example } of published) await server.publish(example.id);
			});
			writeFileSync(imported, fingerprint);
		}
		await step('start n8n', `Starting n8n on port ${n8nPort} (log: ${logFile})`, async () => {
			await server.start(n8nPort);
			// The owner is created on a new user folder; on later runs the account exists already.
			await new N8nRest(server.url).signIn();
			for (const { url } of published) await waitForTriggerWebhook(url);
		});

		if (stopping) return;
		say('');
		say(`Ready: the n8n editor is at ${n8n.url}`);
		say(`Login:       ${OWNER.email} / ${OWNER.password}`);
		say(`Credentials: ${credentials.map((c) => c.name).join(', ')} (all pointing at ${emulator.url})`);
		const width = Math.max(...workflows.map((example) => example.name.length));
		say('Workflows:');
		for (const example of workflows) say(`  ${example.name.padEnd(width)}  ${n8n.url}/workflow/${example.id}`);
		if (webhooks.length > 0) {
			say('Active, listening for bot events (production webhook URLs):');
			for (const { example, url } of webhooks) say(`  ${example.name.padEnd(width)}  ${url}`);
		}
		for (const { example, url } of mcpServers) {
			say(`MCP server:  ${url}  ("${example.name}": its Workplace tools for any MCP client, Streamable HTTP or SSE)`);
			say(`  Header:    Authorization: Bearer ${String(EXAMPLE_MCP_CREDENTIAL.data.token)} (the credential "${EXAMPLE_MCP_CREDENTIAL.name}")`);
		}
		say(`Play a user: ${emulator.url}/__emulator/`);
		const target = webhooks.find((w) => w.url === emulator?.config.webhookUrl);
		say(
			emulator.config.webhookUrl
				? `  Press "Send message" or "Tap postback" there: the emulator signs the event and delivers it to ` +
						`${target ? `"${target.example.name}"` : emulator.config.webhookUrl}, and the bot's answer shows under "What the bot sent". ` +
						'A click on a button the bot sent taps it as a phone would (a link: its page opened and confirmed; a postback: delivered signed).'
				: '  Enter a webhook URL there (WEBHOOK_URL prefills it).',
		);
		say('');
		for (const line of phaseSummary()) say(line);
		say('Ctrl-C stops n8n and the emulator.');

		const child = n8n.server;
		child?.once('exit', (code) => {
			if (stopping) return;
			say(`n8n exited unexpectedly (${code ?? 'signal'}); see ${logFile}`);
			void stop(1);
		});
	} catch (error) {
		if (stopping) return;
		console.error(error instanceof Error ? error.message : error);
		say(`n8n's log: ${logFile}`);
		await stop(1);
	}
}

void main();
