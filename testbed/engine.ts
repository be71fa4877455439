/**
 * n8n's engine without the n8n server: workflows (as exported JSON) run through
 * n8n-core's real WorkflowExecute, with the nodes and credentials loaded the way
 * n8n loads a community package (from built JS files, or under ts-jest from
 * their sources), an in-memory credentials helper, and real HTTP (n8n-core's
 * OutboundHttp / axios stack, nothing mocked). The jest suites reach it through
 * their test bed (testbed.ts); bench/ and scripts/demo.ts use it directly.
 *
 * Targets n8n-core 2.41.x / n8n-workflow 2.41.x on Node >= 22 (tested on Node 24).
 */
import 'reflect-metadata';

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { Container } from '@n8n/di';
import {
	BinaryDataConfig,
	BinaryDataService,
	CredentialTestContext,
	Credentials,
	LoadOptionsContext,
	ExecutionLifecycleHooks,
	PollContext,
	TriggersAndPollers,
	ExternalSecretsProxy,
	WorkflowExecute,
} from 'n8n-core';
import {
	createRunExecutionData,
	ICredentialsHelper,
	NodeHelpers,
	UnexpectedError,
	Workflow,
	isExpression,
} from 'n8n-workflow';
import type {
	ExecutionError,
	INodeListSearchResult,
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialsExpressionResolveValues,
	ICredentialTestFunction,
	ICredentialType,
	ICredentialTypes,
	IDataObject,
	IExecuteData,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeParameters,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	INodeTypes,
	IPairedItemData,
	IRequestOptionsSimplified,
	IRun,
	IRunExecutionData,
	ITaskData,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { makeTempFolder, removeTempFolder } from '../emulator/common/tempFolders';

// ---------------------------------------------------------------------------
// 0. Process / DI environment
// ---------------------------------------------------------------------------

export type BinaryMode = 'default' | 'filesystem';

export interface HarnessEnvOptions {
	/** 'default' = binary kept in memory as base64 on the item; 'filesystem' = streamed to disk. */
	binaryDataMode?: BinaryMode;
	/** Where filesystem-mode binaries are written. Defaults to a fresh temp dir. */
	binaryStoragePath?: string;
	/** n8n user folder (InstanceSettings writes <folder>/.n8n/config there). Defaults to temp dir. */
	userFolder?: string;
}

export interface HarnessEnv {
	userFolder: string;
	binaryStoragePath: string;
	binaryDataMode: BinaryMode;
	/** Switch binary mode between tests; BinaryDataService.init() re-reads the config. */
	setBinaryDataMode(mode: BinaryMode, storagePath?: string): Promise<void>;
}

let envSingleton: HarnessEnv | undefined;

/** The temp folders the harness made in this process: its user folder and binary store. */
const harnessFolders: string[] = [];

/** Removes the temp folders the harness made (an interrupted process removes them with every other: removeTempFolders). */
export function removeHarnessFolders(): void {
	for (const dir of harnessFolders.splice(0)) removeTempFolder(dir);
}

/**
 * Must run before anything touches Container.get(InstanceSettings) (i.e. before the first
 * workflow run): InstanceSettings/InstanceSettingsConfig read env vars in their constructors
 * and are cached as DI singletons afterwards.
 */
export async function initHarnessEnv(options: HarnessEnvOptions = {}): Promise<HarnessEnv> {
	if (envSingleton) {
		await envSingleton.setBinaryDataMode(
			options.binaryDataMode ?? envSingleton.binaryDataMode,
			options.binaryStoragePath,
		);
		return envSingleton;
	}

	const makeTemp = (prefix: string) => {
		const dir = makeTempFolder(prefix);
		harnessFolders.push(dir);
		return dir;
	};

	const userFolder = options.userFolder ?? makeTemp('n8n-harness-home-');
	// Read by @n8n/config (InstanceSettingsConfig) when InstanceSettings is first constructed.
	process.env.N8N_USER_FOLDER = userFolder;
	process.env.N8N_ENCRYPTION_KEY ??= 'n8n-harness-test-encryption-key';
	process.env.N8N_LOG_LEVEL ??= 'silent';
	// The settings file is written with 0600; avoid the permissions warning noise.
	process.env.N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS ??= 'false';
	// Do not let the egress/SSRF filter block 127.0.0.1 (it is disabled by default, be explicit).
	process.env.N8N_SSRF_PROTECTION_ENABLED ??= 'false';

	const env: HarnessEnv = {
		userFolder,
		binaryStoragePath: options.binaryStoragePath ?? makeTemp('n8n-harness-binary-'),
		binaryDataMode: options.binaryDataMode ?? 'default',
		async setBinaryDataMode(mode, storagePath) {
			const config = Container.get(BinaryDataConfig);
			config.mode = mode;
			config.localStoragePath = storagePath ?? env.binaryStoragePath;
			env.binaryDataMode = mode;
			env.binaryStoragePath = config.localStoragePath;
			// init() always wires the filesystem manager (so ids like "filesystem-v2:..." are
			// readable in any mode) and sets the *write* mode from config.mode.
			await Container.get(BinaryDataService).init();
		},
	};
	await env.setBinaryDataMode(env.binaryDataMode, env.binaryStoragePath);
	envSingleton = env;
	return env;
}

// ---------------------------------------------------------------------------
// 1. Loading node + credential classes as n8n loads a community package
// ---------------------------------------------------------------------------

export interface ClassRef {
	/** Absolute path of the module: a built .js file, or under ts-jest its .ts source. */
	path: string;
	/** Exported class name; defaults to the file name minus `.node.js` / `.credentials.js`. */
	className?: string;
}

function instantiate<T>(ref: ClassRef, suffix: string): T {
	const className = ref.className ?? path.basename(ref.path).replace(suffix, '');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const mod = require(ref.path) as Record<string, new () => T>;
	const Ctor = mod[className];
	if (typeof Ctor !== 'function') {
		throw new UnexpectedError(`Class "${className}" not exported by ${ref.path}`);
	}
	return new Ctor();
}

/**
 * A tiny manual trigger owned by the harness (n8n-nodes-base is not installed).
 * It is a plain execute() node that passes through whatever items the harness seeds into
 * the execution stack (default: one empty item, exactly like n8n's Manual Trigger).
 */
export class HarnessManualTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Manual Trigger',
		name: 'n8n-nodes-base.manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Harness stand-in for the Manual Trigger',
		defaults: { name: 'When clicking ‘Execute workflow’' },
		inputs: [],
		outputs: ['main' as never],
		properties: [],
	};

	async execute(this: import('n8n-workflow').IExecuteFunctions) {
		const items = this.getInputData();
		return [items.length ? items : [{ json: {} }]];
	}
}

export interface LoadedPackage {
	packageName: string;
	nodeClasses: ClassRef[];
	credentialClasses: ClassRef[];
}

/**
 * Reads `package.json#n8n` of a community package, like n8n's PackageDirectoryLoader:
 * the built files it names (`dist/nodes/X.node.js`), or with `fromSources` the
 * TypeScript file each is built from (`nodes/X.node.ts`), which only a loader that
 * compiles TypeScript (ts-jest) can require.
 */
export function readCommunityPackage(packageDir: string, fromSources = false): LoadedPackage {
	const pkg = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as {
		name: string;
		n8n?: { nodes?: string[]; credentials?: string[] };
	};
	const classAt = (entry: string): ClassRef => {
		const built = path.resolve(packageDir, entry);
		if (!fromSources) return { path: built };
		const source = path.resolve(packageDir, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
		return { path: source, className: path.basename(built).replace(/\.(node|credentials)\.js$/, '') };
	};
	return {
		packageName: pkg.name,
		nodeClasses: (pkg.n8n?.nodes ?? []).map(classAt),
		credentialClasses: (pkg.n8n?.credentials ?? []).map(classAt),
	};
}

let nodesBaseKnown: Record<string, { className: string; sourcePath: string }> | undefined;

export class HarnessNodeTypes implements INodeTypes {
	private readonly types = new Map<string, INodeType | IVersionedNodeType>();

	constructor(private readonly useNodesBase = true) {
		if (!useNodesBase) this.add(new HarnessManualTrigger());
	}

	/** Registers under `description.name` (already fully qualified, e.g. n8n-nodes-base.x). */
	add(nodeType: INodeType | IVersionedNodeType, fullName = nodeType.description.name) {
		this.types.set(fullName, nodeType);
		return fullName;
	}

	/**
	 * Loads `new (require(path))[ClassName]()` and registers it as `${packageName}.${name}`,
	 * which is the type string n8n writes into exported workflow JSON for community nodes.
	 */
	loadFromFile(ref: ClassRef, packageName: string): string {
		const nodeType = instantiate<INodeType | IVersionedNodeType>(ref, '.node.js');
		const fullName = `${packageName}.${nodeType.description.name}`;
		// n8n rewrites description.name to the fully-qualified name as well
		nodeType.description.name = fullName;
		if ('nodeVersions' in nodeType) {
			for (const v of Object.values(nodeType.nodeVersions)) v.description.name = fullName;
		}
		return this.add(nodeType, fullName);
	}

	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = this.types.get(nodeType) ?? this.loadNodesBase(nodeType);
		if (!type) throw new UnexpectedError(`Unknown node type: ${nodeType}`);
		return type;
	}

	/**
	 * n8n's own nodes (Manual and Schedule Trigger, If, Merge, …) come from the real
	 * n8n-nodes-base package, found by name in its known/nodes.json as n8n finds them.
	 */
	private loadNodesBase(nodeType: string): INodeType | IVersionedNodeType | undefined {
		const prefix = 'n8n-nodes-base.';
		if (!this.useNodesBase || !nodeType.startsWith(prefix)) return undefined;
		const packageDir = path.dirname(require.resolve('n8n-nodes-base/package.json'));
		const known = nodesBaseKnown ??= JSON.parse(
			readFileSync(path.join(packageDir, 'dist/known/nodes.json'), 'utf8'),
		) as Record<string, { className: string; sourcePath: string }>;
		const entry = known[nodeType.slice(prefix.length)];
		if (!entry) return undefined;
		const loaded = instantiate<INodeType | IVersionedNodeType>(
			{ path: path.join(packageDir, entry.sourcePath), className: entry.className },
			'.node.js',
		);
		this.add(loaded, nodeType);
		return loaded;
	}

	getByNameAndVersion(nodeType: string, version?: number): INodeType {
		return NodeHelpers.getVersionedNodeType(this.getByName(nodeType), version);
	}

	getKnownTypes(): IDataObject {
		const known: IDataObject = {};
		for (const [name, type] of this.types) known[name] = { className: type.constructor.name, sourcePath: '' };
		return known;
	}
}

export class HarnessCredentialTypes implements ICredentialTypes {
	private readonly types = new Map<string, ICredentialType>();

	add(type: ICredentialType) {
		this.types.set(type.name, type);
		return type.name;
	}

	loadFromFile(ref: ClassRef): string {
		return this.add(instantiate<ICredentialType>(ref, '.credentials.js'));
	}

	recognizes(type: string) {
		return this.types.has(type);
	}

	getByName(type: string): ICredentialType {
		const t = this.types.get(type);
		if (!t) throw new UnexpectedError(`Unknown credential type: ${type}`);
		return t;
	}

	getSupportedNodes(type: string): string[] {
		return this.types.get(type)?.supportedNodes ?? [];
	}

	getParentTypes(type: string): string[] {
		const parents = this.types.get(type)?.extends ?? [];
		return parents.flatMap((p) => [p, ...this.getParentTypes(p)]);
	}
}

export function loadCommunityPackage(packageDir: string, fromSources = false) {
	const nodeTypes = new HarnessNodeTypes();
	const credentialTypes = new HarnessCredentialTypes();
	const pkg = readCommunityPackage(packageDir, fromSources);
	const nodeNames = pkg.nodeClasses.map((ref) => nodeTypes.loadFromFile(ref, pkg.packageName));
	const credentialNames = pkg.credentialClasses.map((ref) => credentialTypes.loadFromFile(ref));
	return { nodeTypes, credentialTypes, nodeNames, credentialNames, packageName: pkg.packageName };
}

// ---------------------------------------------------------------------------
// 2. In-memory credentials helper
// ---------------------------------------------------------------------------

export interface StoredCredential {
	id: string;
	name: string;
	type: string;
	data: ICredentialDataDecryptedObject;
}

export type CredentialEvent =
	| { kind: 'preAuthentication'; type: string; expired: boolean; output: IDataObject }
	| { kind: 'updateCredentials'; id: string | null; type: string; data: ICredentialDataDecryptedObject }
	| { kind: 'authenticate'; type: string; url?: string }
	/** A credential read (getDecrypted), as n8n does it for nodes' getCredentials: a database read and a decryption in n8n. */
	| { kind: 'read'; type: string };

const PLACEHOLDER_NODE: INode = {
	id: 'harness-credential-node',
	name: 'Harness Credential Node',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

export class InMemoryCredentialsHelper extends ICredentialsHelper {
	private readonly store = new Map<string, StoredCredential>();

	/** Audit trail, handy for asserting token refreshes. */
	readonly events: CredentialEvent[] = [];

	constructor(readonly credentialTypes: HarnessCredentialTypes) {
		super();
	}

	/** Add/replace a credential. Nodes reference it via node.credentials[type] = { id, name }. */
	set(cred: Omit<StoredCredential, 'name'> & { name?: string }) {
		this.store.set(cred.id, { name: cred.name ?? cred.id, ...cred, data: { ...cred.data } });
	}

	/** How many times credentials of `type` were read (decrypted) since `events` was last emptied. */
	reads(type: string): number {
		return this.events.filter((e) => e.kind === 'read' && e.type === type).length;
	}

	/** Current stored (raw, pre-defaults) data, e.g. to assert a persisted refreshed token. */
	getStored(id: string) {
		return this.store.get(id);
	}

	private find(nodeCredentials: INodeCredentialsDetails | undefined, type: string): StoredCredential {
		if (nodeCredentials?.id) {
			const byId = this.store.get(nodeCredentials.id);
			if (byId) return byId;
		}
		// Fallback: the only credential of that type (lets tests omit ids)
		const byType = [...this.store.values()].filter((c) => c.type === type);
		if (byType.length === 1) return byType[0];
		throw new UnexpectedError(
			`No credential of type "${type}" (id: ${nodeCredentials?.id ?? 'none'}) registered in harness`,
		);
	}

	getParentTypes(name: string): string[] {
		return this.credentialTypes.getParentTypes(name);
	}

	isCredentialUsableByNode(credentialType: string, nodeType: string): boolean {
		if (!this.credentialTypes.recognizes(credentialType)) return true;
		const type = this.credentialTypes.getByName(credentialType);
		if (!type.restrictToSupportedNodes) return true;
		return (type.supportedNodes ?? []).some((n) => n === nodeType || nodeType.endsWith(`.${n}`));
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const credType = this.credentialTypes.getByName(type);
		if (!credType.extends?.length) return credType.properties;
		const merged: INodeProperties[] = [];
		for (const parent of credType.extends) {
			NodeHelpers.mergeNodeProperties(merged, this.getCredentialsProperties(parent));
		}
		NodeHelpers.mergeNodeProperties(merged, credType.properties);
		return merged;
	}

	/** Applies property defaults (like the CLI's applyDefaultsAndOverwrites, minus overwrites). */
	applyDefaults(type: string, raw: ICredentialDataDecryptedObject): ICredentialDataDecryptedObject {
		const withDefaults = NodeHelpers.getNodeParameters(
			this.getCredentialsProperties(type),
			raw as INodeParameters,
			true,
			false,
			null,
			null,
		) as ICredentialDataDecryptedObject;
		// oauthTokenData (and any other non-declared key) is dropped by getNodeParameters
		for (const [k, v] of Object.entries(raw)) if (!(k in withDefaults)) withDefaults[k] = v;
		return withDefaults;
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		mode: WorkflowExecuteMode,
		executeData?: IExecuteData,
		raw?: boolean,
		expressionResolveValues?: ICredentialsExpressionResolveValues,
	): Promise<ICredentialDataDecryptedObject> {
		const stored = this.find(nodeCredentials, type);
		this.events.push({ kind: 'read', type });
		const data = structuredClone(stored.data);
		if (raw) return data;
		let decrypted = this.applyDefaults(type, data);
		if (expressionResolveValues) {
			const { workflow, runExecutionData, runIndex, itemIndex, node, connectionInputData } =
				expressionResolveValues;
			decrypted = workflow.expression.getParameterValue(
				decrypted as INodeParameters,
				runExecutionData,
				runIndex,
				itemIndex,
				node.name,
				connectionInputData,
				mode,
				{},
				executeData,
				false,
				decrypted,
			) as ICredentialDataDecryptedObject;
		} else {
			// Like the CLI: without run data, expressions still resolve, against a mock workflow.
			const workflow = new Workflow({
				nodes: [PLACEHOLDER_NODE],
				connections: {},
				active: false,
				nodeTypes: placeholderNodeTypes,
			});
			decrypted = workflow.expression.getComplexParameterValue(
				PLACEHOLDER_NODE,
				decrypted as INodeParameters,
				mode,
				{},
				undefined,
				undefined,
				decrypted,
			) as ICredentialDataDecryptedObject;
		}
		return decrypted;
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<Credentials> {
		const stored = this.find(nodeCredentials, type);
		// Credentials encrypts with Cipher -> InstanceSettings.encryptionKey (set up in initHarnessEnv)
		const creds = new Credentials({ id: stored.id, name: stored.name }, type);
		await creds.setData(stored.data);
		return creds;
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const stored = this.find(nodeCredentials, type);
		stored.data = { ...data };
		this.events.push({ kind: 'updateCredentials', id: stored.id, type, data: { ...data } });
	}

	async updateCredentialsOauthTokenData(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		const stored = this.find(nodeCredentials, type);
		stored.data = { ...stored.data, oauthTokenData: data.oauthTokenData };
		this.events.push({ kind: 'updateCredentials', id: stored.id, type, data: { ...stored.data } });
	}

	/**
	 * Resolves `={{$credentials.x}}` expressions with n8n's real expression engine. The CLI does
	 * the same through workflow.expression.getSimpleParameterValue with `$credentials` as an
	 * additional key.
	 */
	private resolve(
		value: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow | undefined,
		node: INode | undefined,
	): string {
		if (!isExpression(value)) return value;
		const wf =
			workflow ??
			new Workflow({ nodes: [PLACEHOLDER_NODE], connections: {}, active: false, nodeTypes: placeholderNodeTypes });
		const resolved = wf.expression.getSimpleParameterValue(
			node ?? PLACEHOLDER_NODE,
			value,
			'internal',
			{ $credentials: credentials } as IDataObject,
			undefined,
			'',
		);
		return resolved === undefined || resolved === null ? '' : String(resolved);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const credType = this.credentialTypes.getByName(typeName);
		this.events.push({ kind: 'authenticate', type: typeName, url: (requestOptions as IHttpRequestOptions).url });
		const { authenticate } = credType;
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type === 'generic') {
			const target = requestOptions as unknown as Record<string, Record<string, unknown> | undefined>;
			for (const [section, entries] of Object.entries(authenticate.properties)) {
				for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
					const k = this.resolve(key, credentials, workflow, node);
					const v = typeof value === 'string' ? this.resolve(value, credentials, workflow, node) : value;
					target[section] ??= {};
					target[section]![k] = v;
				}
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	/**
	 * Called by n8n-core's httpRequestWithAuthentication / requestWithAuthentication:
	 *  - before every request with credentialsExpired=false (we only fetch if the expirable
	 *    field is empty),
	 *  - once more with credentialsExpired=true after the request failed with 401
	 *    (or `preAuthenticationRetryStatusCode`), followed by one retry.
	 * Must return the *new* data (it is Object.assign'ed onto the decrypted credentials) or
	 * undefined, and should persist the token (updateCredentials) so later runs reuse it.
	 */
	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		// Mirrors packages/cli/src/credentials-helper.ts: the expirable field is looked up on
		// the type's own properties, only an empty string (or a 401, or a credential test)
		// triggers a fetch, and the result is persisted and returned only for a node that
		// names the credential.
		const credType = this.credentialTypes.getByName(typeName);
		const expirable = credType.properties.find(
			(p) => p.type === 'hidden' && p.typeOptions?.expirable === true,
		);
		if (expirable?.name === undefined) return undefined;
		if (typeof credType.preAuthentication !== 'function') return undefined;

		if (!(credentials[expirable.name] === '' || credentialsExpired)) {
			return undefined;
		}

		const output = (await credType.preAuthentication.call(helpers, credentials)) as IDataObject;
		this.events.push({ kind: 'preAuthentication', type: typeName, expired: credentialsExpired, output });
		if (output[expirable.name] === undefined) return undefined;

		if (!node.credentials) return undefined;
		const nodeCreds = node.credentials[typeName];
		// Cache onto the raw stored data, but never replace a field the user stored as an
		// expression with its value of this run (the expirable field itself excepted).
		// The CLI reads the stored row (getCredentials(...).getData()); here that is the store.
		const storedData = structuredClone(this.find(nodeCreds, typeName).data);
		const dataToPersist: ICredentialDataDecryptedObject = { ...storedData };
		for (const [key, value] of Object.entries(output as ICredentialDataDecryptedObject)) {
			if (key === expirable.name || !isExpression(storedData[key])) dataToPersist[key] = value;
		}
		await this.updateCredentials(nodeCreds, typeName, dataToPersist);
		return Object.assign(credentials, output);
	}

	/** Unconditional variant; n8n-core only calls it from requestOAuth2 (token transforms). */
	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credType = this.credentialTypes.getByName(typeName);
		if (typeof credType.preAuthentication !== 'function') return undefined;
		return ((await credType.preAuthentication.call(helpers, credentials)) as ICredentialDataDecryptedObject) ?? undefined;
	}
}

const placeholderNodeTypes: INodeTypes = {
	getByName: () => new HarnessManualTrigger(),
	getByNameAndVersion: () => new HarnessManualTrigger(),
	getKnownTypes: () => ({}),
};

// ---------------------------------------------------------------------------
// 3. additionalData
// ---------------------------------------------------------------------------

export interface AdditionalDataOptions {
	credentialsHelper: ICredentialsHelper;
	hooks: ExecutionLifecycleHooks;
	executionId: string;
	workflowId: string;
	baseUrl?: string;
	executeWorkflow?: IWorkflowExecuteAdditionalData['executeWorkflow'];
	variables?: IDataObject;
}

/**
 * Hand-built IWorkflowExecuteAdditionalData (the CLI's WorkflowExecuteAdditionalData.getBase()
 * equivalent). Only credentialsHelper, hooks, executionId, URLs and variables matter for
 * ordinary execute() nodes; the rest are stubs that throw if a node actually needs them.
 */
export function buildAdditionalData(o: AdditionalDataOptions): IWorkflowExecuteAdditionalData {
	const base = o.baseUrl ?? 'http://localhost:5678';
	const notSupported = (what: string) => async () => {
		throw new UnexpectedError(`${what} is not supported by the test harness`);
	};
	const additionalData: IWorkflowExecuteAdditionalData = {
		credentialsHelper: o.credentialsHelper,
		hooks: o.hooks,
		executionId: o.executionId,
		workflowId: o.workflowId,
		userId: 'harness-user',
		executeWorkflow: o.executeWorkflow ?? (notSupported('executeWorkflow') as never),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		currentNodeExecutionIndex: 0,
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: base,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		variables: o.variables ?? {},
		logAiEvent: () => {},
		startRunnerTask: notSupported('startRunnerTask (Code node task runner)') as never,
		// declared on IWorkflowExecuteAdditionalData by n8n-core's module augmentation; used by $secrets
		externalSecretsProxy: new ExternalSecretsProxy(),
	};
	return additionalData;
}

// ---------------------------------------------------------------------------
// 4. Running a workflow
// ---------------------------------------------------------------------------

export interface WorkflowJson {
	id?: string;
	name?: string;
	nodes: INode[];
	connections: IWorkflowBase['connections'];
	settings?: IWorkflowSettings;
	pinData?: IWorkflowBase['pinData'];
}

export interface RunWorkflowOptions {
	workflow: WorkflowJson;
	nodeTypes: HarnessNodeTypes;
	credentialsHelper: ICredentialsHelper;
	/** Items fed into the start (trigger) node. Default: one empty item. */
	triggerItems?: INodeExecutionData[];
	/** Every output of the start node (e.g. a webhook node's workflowData); wins over triggerItems. */
	triggerOutputs?: INodeExecutionData[][];
	/** Start node name; default: the manual trigger (or n8n's getStartNode()). */
	startNodeName?: string;
	mode?: WorkflowExecuteMode;
	executionId?: string;
	/** The n8n address the run's URLs use (resume URLs among them); default http://localhost:5678. */
	baseUrl?: string;
	/**
	 * 'stack' (default): seed nodeExecutionStack and call processRunExecutionData (what
	 * n8n's NodeTestHarness does) – supports triggerItems.
	 * 'run': WorkflowExecute.run({ workflow, startNode }) – start node always gets [{json:{}}].
	 */
	entry?: 'stack' | 'run';
}

export interface NodeRunSummary {
	runIndex: number;
	executionStatus: ITaskData['executionStatus'];
	error?: ExecutionError;
	/** outputs[outputIndex] = items */
	outputs: INodeExecutionData[][];
}

export interface RunWorkflowResult {
	run: IRun;
	/** Final status from IRun ('success' | 'error' | ...). */
	status: IRun['status'];
	/** Execution-level error (set when a node failed without continueOnFail). */
	error?: ExecutionError;
	/** Order in which nodeExecuteAfter fired. */
	executionOrder: string[];
	/** Per node name, per run. */
	nodes: Record<string, NodeRunSummary[]>;
	/** Convenience: items of output 0 of the first run of a node. */
	items(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** Convenience: json of output 0 of the first run of a node. */
	json(nodeName: string, outputIndex?: number): IDataObject[];
}

let executionCounter = 0;

/** The engine's pieces for one execution of a workflow: the Workflow, its additional data and the order nodes finish in. */
function prepareExecution(opts: RunWorkflowOptions) {
	const mode = opts.mode ?? 'manual';
	const executionId = opts.executionId ?? `harness-${++executionCounter}`;
	const wfJson = opts.workflow;
	const workflowId = wfJson.id ?? 'harness-workflow';

	const workflow = new Workflow({
		id: workflowId,
		name: wfJson.name,
		nodes: wfJson.nodes,
		connections: wfJson.connections,
		active: false,
		nodeTypes: opts.nodeTypes,
		settings: wfJson.settings,
		staticData: {},
	});

	const workflowData: IWorkflowBase = {
		id: workflowId,
		name: wfJson.name ?? 'harness',
		active: false,
		isArchived: false,
		nodes: wfJson.nodes,
		connections: wfJson.connections,
		settings: wfJson.settings ?? {},
		createdAt: new Date(),
		updatedAt: new Date(),
		activeVersionId: null,
	} as IWorkflowBase;

	const hooks = new ExecutionLifecycleHooks(mode, executionId, workflowData);
	const executionOrder: string[] = [];
	hooks.addHandler('nodeExecuteAfter', (nodeName) => {
		executionOrder.push(nodeName);
	});

	const additionalData = buildAdditionalData({
		credentialsHelper: opts.credentialsHelper,
		hooks,
		executionId,
		workflowId,
		baseUrl: opts.baseUrl,
	});
	return { mode, workflow, additionalData, executionOrder };
}

export async function runWorkflow(opts: RunWorkflowOptions): Promise<RunWorkflowResult> {
	const { mode, workflow, additionalData, executionOrder } = prepareExecution(opts);
	const wfJson = opts.workflow;

	const startNode = opts.startNodeName
		? workflow.getNode(opts.startNodeName)
		: (Object.values(workflow.nodes).find((n) => n.type === 'n8n-nodes-base.manualTrigger') ??
			workflow.getStartNode());
	if (!startNode) throw new UnexpectedError('No start node found');

	if (opts.entry === 'run') {
		if (opts.triggerItems) throw new UnexpectedError("triggerItems require entry: 'stack'");
		const run = await new WorkflowExecute(additionalData, mode).run({ workflow, startNode });
		return summarize(run, executionOrder);
	}

	// Seed the stack ourselves (instead of WorkflowExecute.run) so arbitrary trigger items work.
	const runExecutionData: IRunExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: startNode,
					data: { main: opts.triggerOutputs ?? [opts.triggerItems ?? [{ json: {} }]] },
					source: null,
				},
			],
		},
		resultData: { pinData: wfJson.pinData },
	});

	const workflowExecute = new WorkflowExecute(additionalData, mode, runExecutionData);
	const run = await workflowExecute.processRunExecutionData(workflow);

	return summarize(run, executionOrder);
}

/**
 * Goes on with an execution's data as n8n does when it resumes it: the engine
 * continues from the data's node execution stack, under the same execution id.
 */
export async function continueWorkflow(opts: RunWorkflowOptions & { data: IRunExecutionData }): Promise<RunWorkflowResult> {
	const { mode, workflow, additionalData, executionOrder } = prepareExecution(opts);
	const run = await new WorkflowExecute(additionalData, mode, opts.data).processRunExecutionData(workflow);
	return summarize(run, executionOrder);
}

/**
 * What n8n's waiting webhook does to a waiting execution's data before the
 * waiting node's webhook runs (WaitingWebhooks.getWebhookExecutionData): the
 * wait is ended, the waiting node disabled (so, resumed, it passes its answer
 * on as its output instead of running again) and its own run taken off.
 * Returns the waiting node's name.
 */
export function openWaitingData(data: IRunExecutionData): string {
	const entry = data.executionData?.nodeExecutionStack[0];
	const waitingNode = data.resultData.lastNodeExecuted;
	if (!entry || !waitingNode) throw new UnexpectedError('The execution is not waiting at a node');
	entry.node = { ...entry.node, disabled: true };
	data.waitTill = undefined;
	data.resultData.runData[waitingNode]?.pop();
	return waitingNode;
}

/**
 * Resumes an execution that a node put to wait (Send and Wait), as n8n's
 * waiting webhook does once the node's webhook has answered with `answer`: the
 * waiting node's run is dropped, the node is disabled so it passes `answer`
 * on as its output, and the engine goes on from it.
 */
export async function resumeWorkflow(opts: RunWorkflowOptions & { waiting: RunWorkflowResult; answer: INodeExecutionData[] }): Promise<RunWorkflowResult> {
	const data = opts.waiting.run.data;
	if (!data.waitTill) throw new UnexpectedError('The execution is not waiting');
	openWaitingData(data);
	data.executionData!.nodeExecutionStack[0].data = { main: [opts.answer] };
	return await continueWorkflow({ ...opts, data });
}

export function summarize(run: IRun, executionOrder: string[]): RunWorkflowResult {
	const nodes: Record<string, NodeRunSummary[]> = {};
	for (const [nodeName, tasks] of Object.entries(run.data.resultData.runData)) {
		nodes[nodeName] = tasks.map((task, runIndex) => ({
			runIndex,
			executionStatus: task.executionStatus,
			error: task.error,
			outputs: (task.data?.main ?? []).map((items) => items ?? []),
		}));
	}
	const items = (nodeName: string, outputIndex = 0) => {
		const summary = nodes[nodeName]?.[0];
		if (!summary) throw new UnexpectedError(`Node "${nodeName}" did not run`);
		return summary.outputs[outputIndex] ?? [];
	};
	return {
		run,
		status: run.status,
		error: run.data.resultData.error,
		executionOrder,
		nodes,
		items,
		json: (nodeName, outputIndex) => items(nodeName, outputIndex).map((i) => i.json),
	};
}

/** Normalises pairedItem (number | object | array | undefined) to an array of objects. */
export function pairedItems(item: INodeExecutionData): IPairedItemData[] {
	const p = item.pairedItem;
	if (p === undefined) return [];
	if (typeof p === 'number') return [{ item: p }];
	return Array.isArray(p) ? p : [p];
}

// ---------------------------------------------------------------------------
// 5. Credential test (a type's `test`, or a node's `testedBy`), the way the CLI's CredentialsTester does it
// ---------------------------------------------------------------------------

/**
 * The CLI's CredentialsTester.getCredentialTestFunction for nodes: the first
 * node (any version) whose `credentials` entry for this type names a function
 * of `methods.credentialTest` in `testedBy` (this package's credentials have
 * no `test` request of their own; their nodes test them).
 */
function findTestedBy(credentialType: string, nodeTypes: INodeTypes): ICredentialTestFunction | undefined {
	for (const name of Object.keys(nodeTypes.getKnownTypes())) {
		const type = nodeTypes.getByName(name);
		const versions: INodeType[] = 'nodeVersions' in type ? Object.values(type.nodeVersions).reverse() : [type];
		for (const nodeType of versions) {
			for (const { name: credName, testedBy } of nodeType.description.credentials ?? []) {
				if (credName !== credentialType || typeof testedBy !== 'string') continue;
				const fn = nodeType.methods?.credentialTest?.[testedBy];
				if (fn) return fn;
			}
		}
	}
	return undefined;
}

/** The credential's Test button, as the CLI's CredentialsTester: the node's function, called on a CredentialTestContext. */
export async function testCredential(
	credentialsHelper: InMemoryCredentialsHelper,
	credentialId: string,
	/** Node types searched for `testedBy`. */
	nodeTypes: INodeTypes,
): Promise<INodeCredentialTestResult> {
	const stored = credentialsHelper.getStored(credentialId);
	if (!stored) throw new UnexpectedError(`Unknown credential ${credentialId}`);
	const test = findTestedBy(stored.type, nodeTypes);
	if (!test) return { status: 'Error', message: 'No testing function found for this credential.' };
	const credentialsDecrypted: ICredentialsDecrypted = {
		id: stored.id,
		name: stored.name,
		type: stored.type,
		data: credentialsHelper.applyDefaults(stored.type, structuredClone(stored.data)),
	};
	return await test.call(new CredentialTestContext(), credentialsDecrypted);
}

// ---------------------------------------------------------------------------
// 6. Resource-locator list search, as the editor asks for it
// ---------------------------------------------------------------------------

export interface ListSearchOptions {
	nodeTypes: HarnessNodeTypes;
	credentialsHelper: ICredentialsHelper;
	/** The node as it stands in the editor: type, parameters, credentials. */
	node: INode;
	method: string;
	/** Path of the parameter whose list is opened, e.g. 'parameters.fileId'. */
	path?: string;
	filter?: string;
	paginationToken?: string;
}

/**
 * Calls a node's `methods.listSearch[method]` with a real LoadOptionsContext, the
 * way n8n's dynamic-node-parameters service does when the editor opens a list.
 */
export async function runListSearch(o: ListSearchOptions): Promise<INodeListSearchResult> {
	const nodeType = o.nodeTypes.getByNameAndVersion(o.node.type, o.node.typeVersion);
	const search = nodeType.methods?.listSearch?.[o.method];
	if (!search) throw new UnexpectedError(`${o.node.type} has no listSearch method "${o.method}"`);
	const workflow = new Workflow({ nodes: [o.node], connections: {}, active: false, nodeTypes: o.nodeTypes });
	const mode: WorkflowExecuteMode = 'internal';
	const hooks = new ExecutionLifecycleHooks(mode, 'list-search', {
		id: 'list-search',
		name: 'list-search',
		nodes: [o.node],
		connections: {},
	} as unknown as IWorkflowBase);
	const additionalData = buildAdditionalData({
		credentialsHelper: o.credentialsHelper,
		hooks,
		executionId: 'list-search',
		workflowId: 'list-search',
	});
	// The editor sends the node's current parameters, so a list can depend on another field.
	additionalData.currentNodeParameters = o.node.parameters;
	const context = new LoadOptionsContext(workflow, o.node, additionalData, o.path ?? 'parameters');
	return await search.call(context, o.filter, o.paginationToken);
}

// ---------------------------------------------------------------------------
// 7. Polling triggers, as n8n's active workflows poll them
// ---------------------------------------------------------------------------

export interface PollerOptions {
	nodeTypes: HarnessNodeTypes;
	credentialsHelper: ICredentialsHelper;
	/** The trigger node; the workflow holds it alone. */
	node: INode;
}

export interface Poller {
	/**
	 * One poll: 'trigger' as n8n's schedule runs it on an active workflow, 'manual'
	 * as the editor's "Fetch Test Event" does. Returns what poll() returned (null: nothing to emit).
	 */
	poll(mode?: 'trigger' | 'manual'): Promise<INodeExecutionData[][] | null>;
	/** The node's static data, as n8n keeps it between polls of one activation. */
	readonly staticData: IDataObject;
}

/**
 * One activation of a workflow whose trigger polls: like n8n's active workflow
 * manager, one Workflow object (holding the static data) and one poll context
 * per mode live as long as the activation, and each poll runs the node's poll()
 * through n8n-core's TriggersAndPollers.
 */
export function createPoller(o: PollerOptions): Poller {
	const workflow = new Workflow({
		id: 'harness-poll-workflow',
		name: 'harness poll',
		nodes: [o.node],
		connections: {},
		active: true,
		nodeTypes: o.nodeTypes,
		staticData: {},
	});
	const node = workflow.getNode(o.node.name)!;
	const contexts = new Map<string, PollContext>();
	const contextFor = (mode: 'trigger' | 'manual') => {
		let ctx = contexts.get(mode);
		if (!ctx) {
			const hooks = new ExecutionLifecycleHooks(mode, 'harness-poll', { id: workflow.id, name: 'harness poll', nodes: [o.node], connections: {} } as unknown as IWorkflowBase);
			const additionalData = buildAdditionalData({ credentialsHelper: o.credentialsHelper, hooks, executionId: 'harness-poll', workflowId: workflow.id });
			ctx = new PollContext(workflow, node, additionalData, mode, 'activate');
			contexts.set(mode, ctx);
		}
		return ctx;
	};
	return {
		async poll(mode = 'trigger') {
			return await Container.get(TriggersAndPollers).runPollFunction(workflow, node, contextFor(mode));
		},
		get staticData() {
			return workflow.getStaticData('node', node);
		},
	};
}
