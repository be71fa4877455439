/**
 * The project's test bed: the emulator on 127.0.0.1, this package's nodes and
 * credentials loaded as n8n loads a community package (from package.json#n8n)
 * but from their TypeScript sources, and credentials pointing at the emulator.
 * Workflows run in n8n-core's real engine. The jest suites use it, and jest
 * (ts-jest) compiles the sources: a suite that also imports a module of nodes/
 * gets the very module the engine runs, never a second copy from dist/.
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

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { LoggerProxy } from 'n8n-workflow';

import { CREDENTIAL_AREAS, CREDENTIAL_TYPES, credentialData, type EmulatorAccess } from '../emulator/clientCredentials';
import { startEmulator, type Emulator } from '../emulator/server';
import type { EmulatorConfig } from '../emulator/types';
import {
	createPoller,
	type HarnessNodeTypes,
	InMemoryCredentialsHelper,
	initHarnessEnv,
	loadCommunityPackage,
	runListSearch,
	resumeWorkflow,
	runWorkflow,
	testCredential,
	type BinaryMode,
	type Poller,
	type RunWorkflowResult,
	type WorkflowJson,
} from './engine';
import { startWebhookServer, type WebhookServer } from './webhookServer';
import { ExecutionStore, startWaitingWebhooks, type WaitingWebhookServer } from './waitingWebhooks';
import { ROOT } from './root';

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
function captureLogs(): void {
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
		logger[level] = (message: string, metadata?: Parameters<Logger['info']>[1]) => {
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

export interface SuiteOptions {
	/** n8n's binary data mode, set again before each test (a test may switch it); default in memory. */
	binaryMode?: BinaryMode;
	/** Emulator settings applied after each test's reset. */
	emulator?: Partial<EmulatorConfig>;
}

/**
 * The suite's test bed: started before its first test and closed after its
 * last. Before each test the emulator is reset (then given `options.emulator`),
 * every credential is stored afresh (a bot credential with no token yet), the
 * recorded credential events are cleared and the binary data mode set back.
 */
export function suiteTestbed(options: SuiteOptions = {}): Testbed {
	const bed = new Testbed();
	beforeAll(async () => await bed.start(options.binaryMode));
	afterAll(async () => await bed.close());
	beforeEach(async () => await bed.reset(options));
	return bed;
}

interface Started {
	emulator: Emulator;
	credentialsHelper: InMemoryCredentialsHelper;
	nodeTypes: HarnessNodeTypes;
}

export class Testbed {
	private parts?: Started;

	private started(): Started {
		if (!this.parts) throw new Error('The test bed is not started (suiteTestbed starts it in beforeAll)');
		return this.parts;
	}

	get emulator(): Emulator {
		return this.started().emulator;
	}

	get credentialsHelper(): InMemoryCredentialsHelper {
		return this.started().credentialsHelper;
	}

	private get nodeTypes(): HarnessNodeTypes {
		return this.started().nodeTypes;
	}

	async start(binaryMode: BinaryMode = 'default'): Promise<void> {
		await initHarnessEnv({ binaryDataMode: binaryMode });
		captureLogs();
		const emulator = await startEmulator();
		const { nodeTypes, credentialTypes } = loadCommunityPackage(ROOT, true);
		this.parts = { emulator, credentialsHelper: new InMemoryCredentialsHelper(credentialTypes), nodeTypes };
		this.storeCredentials();
	}

	/** What every test of a suite starts from (see suiteTestbed). */
	async reset(options: SuiteOptions = {}): Promise<void> {
		await initHarnessEnv({ binaryDataMode: options.binaryMode ?? 'default' });
		this.emulator.reset();
		if (options.emulator) this.emulator.setConfig(options.emulator);
		this.storeCredentials();
		this.credentialsHelper.events.length = 0;
	}

	/** Every area's credential, pointing at the emulator with its valid secrets and no token yet. */
	private storeCredentials(): void {
		for (const area of CREDENTIAL_AREAS) this.credentialsHelper.set(emulatorCredential(this.emulator, area));
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
		const result = await runWorkflow({
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
		const result = await runWorkflow({ workflow, nodeTypes: this.nodeTypes, credentialsHelper: this.credentialsHelper, startNodeName: triggerName, triggerItems: items, mode: 'trigger' });
		assertNoSecrets(result.run.data.resultData, this.secrets);
		assertNoSecrets(capturedLogs, this.secrets);
		return result;
	}

	/** Goes on with an execution a node put to wait, as if its webhook had answered with `answer` (resumeWorkflow). */
	async resume(workflow: WorkflowJson, waiting: RunWorkflowResult, answer: INodeExecutionData[]): Promise<RunWorkflowResult> {
		const result = await resumeWorkflow({ workflow, nodeTypes: this.nodeTypes, credentialsHelper: this.credentialsHelper, waiting, answer });
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
		const result = await runListSearch({
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

	/**
	 * n8n's database of executions, for executions a node puts to wait: start one
	 * with `store.start(workflow)`, answer it through `waitingWebhooks(store)`.
	 */
	executionStore(): ExecutionStore {
		return new ExecutionStore(this.nodeTypes, this.credentialsHelper);
	}

	/**
	 * One n8n process serving the waiting webhooks of `store`'s executions
	 * (testbed/waitingWebhooks.ts), on n8n 2.41.1's terms or (version 1) 1.85.4's;
	 * `nodeTypes`: the package as this process loaded it (default: the bed's).
	 */
	async waitingWebhooks(store: ExecutionStore, options: { version?: 1 | 2; nodeTypes?: HarnessNodeTypes; port?: number } = {}): Promise<WaitingWebhookServer> {
		return await startWaitingWebhooks({ store, ...options });
	}

	/** A local HTTP server whose requests run `webhookNode` of `workflow` as n8n's webhook server does. */
	async startWebhook(workflow: WorkflowJson, webhookNode: string, options: { activate?: boolean; waitingExecutionId?: string; baseUrl?: string } = {}): Promise<WebhookServer> {
		return await startWebhookServer({
			workflow,
			webhookNode,
			nodeTypes: this.nodeTypes,
			credentialsHelper: this.credentialsHelper,
			...options,
		});
	}

	/** An active workflow of the Workplace Knowledge Trigger with `parameters`, polled on demand (secrets checked in every answer). */
	knowledgePoller(parameters: INodeParameters): Poller {
		const kb = CREDENTIALS.knowledgeBase;
		const poller = createPoller({
			nodeTypes: this.nodeTypes,
			credentialsHelper: this.credentialsHelper,
			node: {
				id: 'knowledge-trigger',
				name: 'Workplace Knowledge Trigger',
				type: KNOWLEDGE_TRIGGER_TYPE,
				typeVersion: 1,
				position: [0, 0],
				parameters,
				credentials: { [kb.type]: { id: kb.id, name: kb.name } },
			},
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
		const result = await testCredential(this.credentialsHelper, id, this.nodeTypes);
		assertNoSecrets(result, this.secrets);
		return result;
	}

	async close(): Promise<void> {
		await this.parts?.emulator.close();
		this.parts = undefined;
	}
}

/** The test credential of one area (CREDENTIALS), pointing at the emulator with its valid secrets. */
export function emulatorCredential(emulator: EmulatorAccess, area: keyof typeof CREDENTIALS) {
	const credential = CREDENTIALS[area];
	return { ...credential, data: credentialData(emulator)[credential.type] as ICredentialDataDecryptedObject };
}

export function botCredentialData(emulator: EmulatorAccess): ICredentialDataDecryptedObject {
	return emulatorCredential(emulator, 'bot').data;
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
