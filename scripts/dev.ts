/**
 * `npm run dev`: the package in a real n8n editor. Starts the emulator (fixed
 * dev credentials, 127.0.0.1:8787, as `npm run emulator`), installs the built
 * package into the user folder .n8n-dev/ the way n8n installs a community
 * package, imports a credential of every type pointing at the emulator and the
 * example workflows, publishes (activates) the examples that start from the
 * Workplace Trigger, starts `n8n start`, sets the owner account up on the first
 * run, prints the editor's URL and login, and waits. Ctrl-C stops n8n and the
 * emulator.
 *
 * The emulator's play page (/__emulator/) delivers signed bot events to one of
 * those examples' production webhook URL (WEBHOOK_URL overrides it), so a
 * newcomer presses "Send message" there and watches the workflow answer; a
 * click on a button the bot sent taps it as a phone would (emulator/messaging/tap.ts).
 *
 * Environment: N8N_PORT (default 5678), EMULATOR_PORT (default PORT or 8787),
 * WORKPLACE_DEV_FOLDER (default <repo>/.n8n-dev), and the emulator's own
 * variables (see emulator/main.ts).
 */
import { createWriteStream, mkdirSync } from 'node:fs';
import path from 'node:path';

import { optionsFromEnv } from '../emulator/main';
import { startEmulator, type Emulator } from '../emulator/server';
import { exampleCredentials, exampleTrigger, exampleWorkflows, type ExampleWorkflow } from '../e2e/lib/examples';
import { N8n, N8nRest, OWNER, ROOT, freePort, installCommunityPackage } from '../e2e/lib/n8n';
import { productionWebhookUrl, waitForTriggerWebhook } from '../e2e/lib/webhooks';

/** The example the play page delivers to, when it is there; else the first one with a Workplace Trigger. */
const PLAY_EXAMPLE = 'bot-answers.json';

const say = (line = '') => process.stdout.write(`${line}\n`);

function portEnv(name: string, fallback: number): number {
	const raw = process.env[name];
	if (raw === undefined || raw === '') return fallback;
	const port = Number(raw);
	if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, got ${raw}`);
	return port;
}

/** Creates the owner on a fresh user folder; on later runs the account exists already. */
async function ensureOwner(rest: N8nRest): Promise<void> {
	const settings = await rest.request<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>('GET', '/rest/settings');
	if (settings.userManagement?.showSetupOnFirstLoad) await rest.setupOwner();
	await rest.login();
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

		const emulatorOptions = optionsFromEnv();
		emulator = await startEmulator({
			...emulatorOptions,
			port: portEnv('EMULATOR_PORT', emulatorOptions.port ?? 8787),
			webhookUrl: emulatorOptions.webhookUrl ?? webhooks[0]?.url,
		});
		say(`Emulator:  ${emulator.url}`);

		n8n = new N8n({ userFolder, echo: createWriteStream(logFile, { flags: 'a' }) });
		say(`Installing the package into ${path.relative(process.cwd(), userFolder) || '.'}/.n8n/nodes (as n8n installs a community package)…`);
		await installCommunityPackage(userFolder);
		const credentials = exampleCredentials(emulator);
		say('Importing the credentials and the example workflows…');
		await n8n.importCredentials(credentials);
		await n8n.importWorkflows(workflows.map((example) => example.workflow));
		// 2.x: publishing replaces activation; n8n activates published workflows as it starts.
		for (const { example } of webhooks) await n8n.cli(['publish:workflow', `--id=${example.id}`]);
		say(`Starting n8n on port ${n8nPort} (log: ${logFile})…`);
		await n8n.start(n8nPort);
		await ensureOwner(new N8nRest(n8n.url));
		for (const { url } of webhooks) await waitForTriggerWebhook(url);

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
