/**
 * The project's one test bed. Every jest suite that needs the emulator or n8n's
 * engine takes its bed here, started before its first test, closed after its
 * last and set back before each test:
 *
 * - `emulatorTestbed()`: the emulator on 127.0.0.1 (a free port) and a plain
 *   HTTP client to it (`call`), for the suites that drive the emulator's
 *   endpoints themselves;
 * - `suiteTestbed()`: the same, plus this package's nodes and credentials
 *   loaded as n8n loads a community package (from package.json#n8n) but from
 *   their TypeScript sources, credentials pointing at the emulator, and
 *   workflows run in n8n-core's real engine.
 *
 * jest (ts-jest) compiles the sources: a suite that also imports a module of
 * nodes/ gets the very module the engine runs, never a second copy from dist/.
 */
import { inspect } from 'node:util';

import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	INode,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeParameters,
	IWorkflowSettings,
} from 'n8n-workflow';

import { SERVICE_APIS, CREDENTIAL_TYPES, credentialData, type ServiceApi, type EmulatorAccess } from '../emulator/clientCredentials';
import { startEmulator, type Emulator } from '../emulator/server';
import type { EmulatorConfig } from '../emulator/types';
import type { BinaryMode, HarnessEnv, HarnessNodeTypes, InMemoryCredentialsHelper, Poller, RunWorkflowResult, WorkflowJson } from './engine';
import { realClock } from './clock';
import { httpRequest, startRecordingServer, type Answer, type HttpOptions, type HttpReply, type Recorded, type RecordingServer } from './httpClient';
import type { WebhookServer } from './webhookServer';
import type { ExecutionStore, WaitingWebhookServer } from './waitingWebhooks';
import { ROOT } from './root';

/**
 * n8n's engine, its logger and the webhook server, loaded when an engine bed
 * starts: loading n8n-core takes about 1.5 s, which a suite that drives only
 * the emulator does not pay.
 */
function engineModules() {
	/* eslint-disable @typescript-eslint/no-require-imports */
	return {
		engine: require('./engine') as typeof import('./engine'),
		webhookServer: require('./webhookServer') as typeof import('./webhookServer'),
		waitingWebhooks: require('./waitingWebhooks') as typeof import('./waitingWebhooks'),
		logger: require('@n8n/backend-common') as typeof import('@n8n/backend-common'),
		di: require('@n8n/di') as typeof import('@n8n/di'),
		workflow: require('n8n-workflow') as typeof import('n8n-workflow'),
		// The very module the node loads from its sources: what the node learned of the service lives there.
		limiters: require('../shared/transport/serviceLimiter') as typeof import('../shared/transport/serviceLimiter'),
	};
	/* eslint-enable @typescript-eslint/no-require-imports */
}
type EngineModules = ReturnType<typeof engineModules>;

export const NODE_TYPE = 'n8n-nodes-workplace.workplace';
export const KNOWLEDGE_TRIGGER_TYPE = 'n8n-nodes-workplace.workplaceKnowledgeTrigger';

/** Credential ids the test workflows reference. */
export const CREDENTIALS = {
	knowledgeBase: { type: CREDENTIAL_TYPES.knowledgeBase, id: 'cred-kb', name: 'Workplace KB (emulator)' },
	bot: { type: CREDENTIAL_TYPES.bot, id: 'cred-bot', name: 'Workplace Bot (emulator)' },
	taskProjects: { type: CREDENTIAL_TYPES.taskProjects, id: 'cred-tp', name: 'Workplace Task Projects (emulator)' },
} as const;

export interface NodeRun {
	result: RunWorkflowResult;
	/** Output items of the Workplace node (empty when it failed). */
	items: INodeExecutionData[];
	json: IDataObject[];
	/** The node's error when it failed without Continue On Fail. */
	error?: IDataObject;
}

export interface RunNodeOptions {
	/** Items fed into the node, pinned on the Manual Trigger as a user would; default one empty item. */
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	/** Workflow settings, e.g. `{ timezone: 'Asia/Bangkok' }` (the node reads it via getTimezone()). */
	settings?: IWorkflowSettings;
	/** The node's type version; default 1, the version older workflows store (2: request settings in Options). */
	typeVersion?: number;
}

/** Every log line n8n (and the node, through this.logger) wrote during the current run. */
export const capturedLogs: Array<{ level: string; message: string; metadata?: string }> = [];
let logsCaptured = false;

/**
 * Records what is logged through n8n's Logger (node contexts' this.logger) and
 * LoggerProxy (the engine), whatever N8N_LOG_LEVEL lets through, so runs can be
 * scanned for secrets in their logs too.
 */
function captureLogs({ logger: { Logger }, di: { Container }, workflow: { LoggerProxy } }: EngineModules): void {
	if (logsCaptured) return;
	logsCaptured = true;
	const levels = ['error', 'warn', 'info', 'debug'] as const;
	const record = (level: string) => (message: string, metadata?: unknown) => {
		// Metadata can be circular (nodes, workflows); kept as text, deep enough for any error it carries.
		capturedLogs.push({ level, message: String(message), metadata: metadata === undefined ? undefined : inspect(metadata, { depth: 8 }) });
	};
	const logger = Container.get(Logger);
	for (const level of levels) {
		const original = logger[level].bind(logger);
		logger[level] = (message: string, metadata?: Parameters<(typeof logger)['info']>[1]) => {
			record(level)(message, metadata);
			original(message, metadata);
		};
	}
	LoggerProxy.init({
		error: record('error'),
		warn: record('warn'),
		info: record('info'),
		debug: record('debug'),
	} as Parameters<typeof LoggerProxy.init>[0]);
}

/** How a request to the emulator is signed: as a client of one API, or as the bot's OAuth client (HTTP Basic). */
export type CallAuth = ServiceApi | 'botClient';

export interface CallOptions extends HttpOptions {
	/**
	 * Signs the request as a client of the service: `knowledgeBase` (its API
	 * key), `taskProjects` (a valid JWT), `bot` (this test's bot token, see
	 * botToken()) or `botClient` (the client id and secret, for /oauth/token).
	 */
	auth?: CallAuth;
}

export interface EmulatorSuiteOptions {
	/** Emulator settings applied after each test's reset. */
	emulator?: Partial<EmulatorConfig>;
	/**
	 * A webhook receiver for the emulator's events (bed.webhook), emptied before
	 * each test; `true` answers 200 `{"ok":true}`, a function answers as it says.
	 */
	webhook?: true | ((request: Recorded) => Answer);
}

export interface SuiteOptions extends EmulatorSuiteOptions {
	/** n8n's binary data mode, set again before each test (a test may switch it); default in memory. */
	binaryMode?: BinaryMode;
}

/** A webhook receiver on 127.0.0.1 (see EmulatorSuiteOptions.webhook). */
export interface WebhookReceiver extends RecordingServer {
	/** Its URL: the origin and /webhook. */
	url: string;
}

/** Registers the bed's life with jest: started before the first test, closed after the last, reset before each. */
function forTheSuite<Bed extends EmulatorBed, Options extends EmulatorSuiteOptions>(bed: Bed, options: Options, start: () => Promise<void>): Bed {
	beforeAll(start);
	afterAll(async () => await bed.close());
	beforeEach(async () => await bed.reset(options));
	return bed;
}

/** The suite's emulator-only bed (see the top of this file, and EmulatorBed.reset for what each test starts from). */
export function emulatorTestbed(options: EmulatorSuiteOptions = {}): EmulatorBed {
	const bed = new EmulatorBed();
	return forTheSuite(bed, options, async () => await bed.start(options));
}

/** The suite's engine bed (see the top of this file, and Testbed.reset for what each test starts from). */
export function suiteTestbed(options: SuiteOptions = {}): Testbed {
	const bed = new Testbed();
	return forTheSuite(bed, options, async () => await bed.start(options));
}

/** The emulator on a free port of 127.0.0.1, a plain HTTP client to it, and an optional webhook receiver. */
export class EmulatorBed {
	private running?: { emulator: Emulator; webhook?: WebhookReceiver };
	private token?: Promise<string>;

	private get parts() {
		if (!this.running) throw new Error('The test bed is not started (emulatorTestbed and suiteTestbed start it in beforeAll)');
		return this.running;
	}

	get emulator(): Emulator {
		return this.parts.emulator;
	}

	/** The webhook receiver asked for with the `webhook` option. */
	get webhook(): WebhookReceiver {
		const { webhook } = this.parts;
		if (!webhook) throw new Error('This bed has no webhook receiver (the suite option `webhook` starts one)');
		return webhook;
	}

	async start(options: EmulatorSuiteOptions = {}): Promise<void> {
		const emulator = await startEmulator();
		let webhook: WebhookReceiver | undefined;
		if (options.webhook) {
			const server = await startRecordingServer(options.webhook === true ? undefined : options.webhook);
			webhook = { ...server, url: `${server.origin}/webhook` };
		}
		this.running = { emulator, webhook };
	}

	/** Each test starts from the real clock (clock.ts), the emulator's seed data and settings (then `options.emulator`), no bot token, an empty webhook record. */
	async reset(options: EmulatorSuiteOptions = {}): Promise<void> {
		realClock();
		this.emulator.reset();
		if (options.emulator) this.emulator.setConfig(options.emulator);
		this.token = undefined;
		if (this.running?.webhook) this.running.webhook.received.length = 0;
	}

	/** A request to the emulator (`path` from its root, e.g. /api/v1/knowledge), answered whole. */
	async call<T = any>(path: string, options: CallOptions = {}): Promise<HttpReply<T>> {
		const { auth, ...request } = options;
		const headers = { ...(auth ? await this.authHeader(auth) : {}), ...(request.headers ?? {}) };
		return await httpRequest<T>(this.emulator.url + path, { ...request, headers });
	}

	/** This test's bot token (scope `bot profile`), asked for on first use. */
	async botToken(): Promise<string> {
		this.token ??= this.newBotToken();
		return await this.token;
	}

	/** A new bot token from /oauth/token with `scope`. */
	async newBotToken(scope = 'bot profile'): Promise<string> {
		const answer = await this.call('/oauth/token', {
			method: 'POST',
			auth: 'botClient',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			body: `grant_type=client_credentials&scope=${encodeURIComponent(scope)}`,
		});
		if (answer.status !== 200) throw new Error(`The emulator gave no bot token (${answer.status}): ${answer.text}`);
		return (answer.body as { access_token: string }).access_token;
	}

	/** A reply token as the service hands one out: inside a message event the emulator delivers to the bed's webhook. */
	async replyToken(event: Record<string, unknown> = {}): Promise<string> {
		const played = await this.call('/__emulator/events', { method: 'POST', json: { url: this.webhook.url, type: 'message', text: 'hi', ...event } });
		if (played.status !== 200) throw new Error(`Playing the event failed: ${played.text}`);
		return (played.body as { replyToken: string }).replyToken;
	}

	private async authHeader(auth: CallAuth): Promise<Record<string, string>> {
		const { apiKey, jwt, clientId, clientSecret } = this.emulator.credentials;
		switch (auth) {
			case 'knowledgeBase':
				return { 'x-api-key': apiKey };
			case 'taskProjects':
				return { authorization: `Bearer ${jwt}` };
			case 'bot':
				return { authorization: `Bearer ${await this.botToken()}` };
			case 'botClient':
				return { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` };
		}
	}

	async close(): Promise<void> {
		await this.running?.webhook?.close();
		await this.running?.emulator.close();
		this.running = undefined;
	}
}

interface EngineParts {
	modules: EngineModules;
	env: HarnessEnv;
	credentialsHelper: InMemoryCredentialsHelper;
	nodeTypes: HarnessNodeTypes;
}

/** The emulator bed with n8n's engine: this package's nodes run in n8n-core against the emulator. */
export class Testbed extends EmulatorBed {
	private engineParts?: EngineParts;

	private get engine(): EngineParts {
		if (!this.engineParts) throw new Error('The test bed is not started (suiteTestbed starts it in beforeAll)');
		return this.engineParts;
	}

	get credentialsHelper(): InMemoryCredentialsHelper {
		return this.engine.credentialsHelper;
	}

	private get nodeTypes(): HarnessNodeTypes {
		return this.engine.nodeTypes;
	}

	/** Where n8n keeps binary data in filesystem mode. */
	get binaryStoragePath(): string {
		return this.engine.env.binaryStoragePath;
	}

	/** Switches n8n's binary data mode for the rest of the test (the next test starts in the suite's mode again). */
	async setBinaryMode(mode: BinaryMode): Promise<void> {
		await this.engine.modules.engine.initHarnessEnv({ binaryDataMode: mode });
	}

	async start(options: SuiteOptions = {}): Promise<void> {
		const modules = engineModules();
		const env = await modules.engine.initHarnessEnv({ binaryDataMode: options.binaryMode ?? 'default' });
		captureLogs(modules);
		await super.start(options);
		const { nodeTypes, credentialTypes } = modules.engine.loadCommunityPackage(ROOT, true);
		this.engineParts = { modules, env, credentialsHelper: new modules.engine.InMemoryCredentialsHelper(credentialTypes), nodeTypes };
		this.storeCredentials();
	}

	/** What every test of an engine suite starts from: the emulator bed's reset, every credential stored afresh (a bot credential with no token yet), no recorded credential events, the suite's binary data mode, nothing learned of the service's limits. */
	async reset(options: SuiteOptions = {}): Promise<void> {
		await this.setBinaryMode(options.binaryMode ?? 'default');
		await super.reset(options);
		this.storeCredentials();
		this.credentialsHelper.events.length = 0;
		// The node's limiters live per process (serviceLimiter.ts): each test meets the service afresh.
		this.engine.modules.limiters.forgetServiceLimiters();
	}

	/** Every API's credential, pointing at the emulator with its valid secrets and no token yet. */
	private storeCredentials(): void {
		for (const api of SERVICE_APIS) this.credentialsHelper.set(emulatorCredential(this.emulator, api));
	}

	/** Every secret the run could leak; tests assert none appears in outputs or errors. */
	get secrets(): string[] {
		const c = this.emulator.credentials;
		// Bot access tokens issued so far, and the Basic header that carries the client secret.
		const botTokens = [...this.emulator.bot.tokens.keys()];
		const basic = Buffer.from(`${c.clientId}:${c.clientSecret}`).toString('base64');
		return [c.apiKey, c.jwt, c.clientSecret, basic, ...botTokens].filter(
			(s): s is string => typeof s === 'string' && s.length > 0,
		);
	}

	async run(workflow: WorkflowJson): Promise<RunWorkflowResult> {
		capturedLogs.length = 0;
		const result = await this.engine.modules.engine.runWorkflow({
			workflow,
			nodeTypes: this.nodeTypes,
			credentialsHelper: this.credentialsHelper,
		});
		assertNoSecrets(result.run.data.resultData, this.secrets);
		assertNoSecrets(capturedLogs, this.secrets);
		return result;
	}

	/**
	 * An execution a trigger started with `items` (as an active workflow's poll or
	 * event does): the trigger node passes them on, the rest of the workflow runs.
	 */
	async runFrom(workflow: WorkflowJson, triggerName: string, items: INodeExecutionData[]): Promise<RunWorkflowResult> {
		capturedLogs.length = 0;
		const result = await this.engine.modules.engine.runWorkflow({ workflow, nodeTypes: this.nodeTypes, credentialsHelper: this.credentialsHelper, startNodeName: triggerName, triggerItems: items, mode: 'trigger' });
		assertNoSecrets(result.run.data.resultData, this.secrets);
		assertNoSecrets(capturedLogs, this.secrets);
		return result;
	}

	/** Goes on with an execution a node put to wait, as if its webhook had answered with `answer` (resumeWorkflow). */
	async resume(workflow: WorkflowJson, waiting: RunWorkflowResult, answer: INodeExecutionData[]): Promise<RunWorkflowResult> {
		const result = await this.engine.modules.engine.resumeWorkflow({ workflow, nodeTypes: this.nodeTypes, credentialsHelper: this.credentialsHelper, waiting, answer });
		assertNoSecrets(result.run.data.resultData, this.secrets);
		return result;
	}

	/** Manual Trigger → one Workplace node with `parameters`. */
	async runNode(parameters: INodeParameters, options: RunNodeOptions = {}): Promise<NodeRun> {
		const result = await this.run(singleNodeWorkflow(parameters, options));
		const summary = result.nodes.Workplace?.[0];
		const items = summary?.outputs[0] ?? [];
		return {
			result,
			items,
			json: items.map((i) => i.json),
			error: summary?.error as IDataObject | undefined,
		};
	}

	/** What the editor's searchable list shows for a resource locator of the Workplace node. */
	async listSearch(method: string, parameters: INodeParameters, filter?: string, paginationToken?: string, path?: string) {
		const { nodes } = singleNodeWorkflow(parameters);
		const result = await this.engine.modules.engine.runListSearch({
			nodeTypes: this.nodeTypes,
			credentialsHelper: this.credentialsHelper,
			node: nodes[1],
			method,
			path,
			filter,
			paginationToken,
		});
		assertNoSecrets(result, this.secrets);
		return result;
	}

	/** A node type of the loaded package (or n8n-nodes-base) at one version, as n8n resolves it. */
	nodeType(type: string, version?: number) {
		return this.nodeTypes.getByNameAndVersion(type, version);
	}

	/** A credential type of the loaded package, as n8n resolves it. */
	credentialType(name: string) {
		return this.credentialsHelper.credentialTypes.getByName(name);
	}

	/**
	 * n8n's database of executions, for executions a node puts to wait: start one
	 * with `store.start(workflow)`, answer it through `waitingWebhooks(store)`.
	 */
	executionStore(): ExecutionStore {
		return new this.engine.modules.waitingWebhooks.ExecutionStore(this.nodeTypes, this.credentialsHelper);
	}

	/**
	 * One n8n process serving the waiting webhooks of `store`'s executions
	 * (testbed/waitingWebhooks.ts), on n8n 2.41.1's terms or (version 1) 1.85.4's;
	 * `nodeTypes`: the package as this process loaded it (default: the bed's).
	 */
	async waitingWebhooks(store: ExecutionStore, options: { version?: 1 | 2; nodeTypes?: HarnessNodeTypes; port?: number } = {}): Promise<WaitingWebhookServer> {
		return await this.engine.modules.waitingWebhooks.startWaitingWebhooks({ store, ...options });
	}

	/** A local HTTP server whose requests run `webhookNode` of `workflow` as n8n's webhook server does. */
	async startWebhook(workflow: WorkflowJson, webhookNode: string, options: { activate?: boolean; waitingExecutionId?: string; baseUrl?: string } = {}): Promise<WebhookServer> {
		return await this.engine.modules.webhookServer.startWebhookServer({
			workflow,
			webhookNode,
			nodeTypes: this.nodeTypes,
			credentialsHelper: this.credentialsHelper,
			...options,
		});
	}

	/** An active workflow of the Workplace Knowledge Trigger with `parameters`, polled on demand (secrets checked in every answer). */
	knowledgePoller(parameters: INodeParameters): Poller {
		const poller = this.engine.modules.engine.createPoller({
			nodeTypes: this.nodeTypes,
			credentialsHelper: this.credentialsHelper,
			node: knowledgeTriggerNode(parameters),
		});
		const secrets = this.secrets;
		return {
			async poll(mode) {
				const result = await poller.poll(mode);
				assertNoSecrets(result, secrets);
				return result;
			},
			get staticData() {
				return poller.staticData;
			},
		};
	}

	async testCredential(id: string): Promise<INodeCredentialTestResult> {
		const result = await this.engine.modules.engine.testCredential(this.credentialsHelper, id, this.nodeTypes);
		assertNoSecrets(result, this.secrets);
		return result;
	}

	async close(): Promise<void> {
		await super.close();
		this.engineParts = undefined;
	}
}

/** The test credential of one API (CREDENTIALS), pointing at the emulator with its valid secrets. */
export function emulatorCredential(emulator: EmulatorAccess, api: keyof typeof CREDENTIALS) {
	const credential = CREDENTIALS[api];
	return { ...credential, data: credentialData(emulator)[credential.type] as ICredentialDataDecryptedObject };
}

export function botCredentialData(emulator: EmulatorAccess): ICredentialDataDecryptedObject {
	return emulatorCredential(emulator, 'bot').data;
}

/** The Workplace Knowledge Trigger with `parameters` and the test bed's knowledge base credential, as a poller polls it. */
export function knowledgeTriggerNode(parameters: INodeParameters): INode {
	const kb = CREDENTIALS.knowledgeBase;
	return {
		id: 'knowledge-trigger',
		name: 'Workplace Knowledge Trigger',
		type: KNOWLEDGE_TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters,
		credentials: { [kb.type]: { id: kb.id, name: kb.name } },
	};
}

export function singleNodeWorkflow(parameters: INodeParameters, options: RunNodeOptions = {}): WorkflowJson {
	const node: INode = {
		id: 'workplace-node',
		name: 'Workplace',
		type: NODE_TYPE,
		typeVersion: options.typeVersion ?? 1,
		position: [200, 0],
		parameters,
		// Every credential of the testbed: the node uses the one its resource needs.
		credentials: Object.fromEntries(
			Object.values(CREDENTIALS).map((c): [string, { id: string; name: string }] => [c.type, { id: c.id, name: c.name }]),
		),
	};
	if (options.continueOnFail) node.onError = 'continueRegularOutput';
	return {
		name: 'test',
		nodes: [
			{
				id: 'trigger',
				name: 'Manual Trigger',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			node,
		],
		connections: {
			'Manual Trigger': { main: [[{ node: 'Workplace', type: 'main', index: 0 }]] },
		},
		pinData: options.items ? { 'Manual Trigger': options.items } : undefined,
		settings: options.settings,
	};
}

/** Fails when any secret appears anywhere in `value` (outputs, errors, descriptions, stacks). */
export function assertNoSecrets(value: unknown, secrets: string[]): void {
	const text = JSON.stringify(value, (_key, v: unknown) =>
		v instanceof Error ? { ...v, message: v.message, stack: v.stack } : v,
	);
	for (const secret of secrets) {
		if (text.includes(secret)) {
			throw new Error(`A secret leaked into the execution data (…${secret.slice(-4)})`);
		}
	}
}
