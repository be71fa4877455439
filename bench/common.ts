/**
 * What every benchmark process shares: n8n-core's real engine with this
 * package loaded from dist/, a "raw" node that runs a plain HTTP loop inside
 * the engine (so baselines pay the same engine costs per item), workflow
 * builders, raw clients, medians and the printed table.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import path from 'node:path';

import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeParameters, INodeType, INodeTypeDescription } from 'n8n-workflow';

import type { EmulatorAccess } from '../emulator/clientCredentials';
import { AUTO_REQUESTS_IN_PARALLEL } from '../nodes/Workplace/actions/requestSettings';
import { InMemoryCredentialsHelper, initHarnessEnv, loadCommunityPackage, removeHarnessFolders, runWorkflow, type BinaryMode, type RunWorkflowResult, type WorkflowJson } from '../testbed/engine';
import { emulatorCredential, singleNodeWorkflow } from '../testbed/testbed';
import { exitOnInterrupt } from '../testbed/interrupt';
import { ROOT } from '../testbed/root';
import { drawBarChart, type BarChart } from './chart';
import type { ChildReady } from './emulator-child';

export const int = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);

// ---------------------------------------------------------------------------
// Raw clients: node:http(s) with or without keep-alive, the practical limit

/** One request with `agent` (an https.Agent for https URLs); resolves the parsed JSON body. */
export function send(agent: http.Agent, method: string, url: string, headers: Record<string, string>, body?: string): Promise<unknown> {
	const request = url.startsWith('https:') ? https.request : http.request;
	return new Promise((resolve, reject) => {
		const outgoing = request(url, { method, agent, headers }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => {
				if ((response.statusCode ?? 0) >= 300) reject(new Error(`${method} ${url} answered ${response.statusCode}`));
				else resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : null);
			});
			response.on('error', reject);
		});
		outgoing.on('error', reject);
		outgoing.end(body);
	});
}

/** Raw jobs run inside the engine as a node (below), so they pay the same engine costs per item. */
export const RAW_JOBS = new Map<string, (items: INodeExecutionData[]) => Promise<INodeExecutionData[]>>();

class BenchRaw implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Bench Raw',
		name: 'bench.raw',
		group: ['transform'],
		version: 1,
		description: 'A raw HTTP loop, for comparison',
		defaults: { name: 'Raw' },
		inputs: ['main' as never],
		outputs: ['main' as never],
		properties: [{ displayName: 'Job', name: 'job', type: 'string', default: '' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const job = RAW_JOBS.get(this.getNodeParameter('job', 0) as string);
		if (!job) throw new Error('unknown raw job');
		const output = await job(this.getInputData());
		return [output.map((item, i) => ({ ...item, pairedItem: { item: Math.min(i, this.getInputData().length - 1) } }))];
	}
}

/** A raw job that sends `GET {base}/api/v1/knowledge/{id}` for each item, one after another, with `agent`. */
export function kbGetLoop(agent: http.Agent, access: EmulatorAccess) {
	const headers = { 'x-api-key': access.credentials.apiKey, accept: 'application/json' };
	return async (input: INodeExecutionData[]) => {
		const out: INodeExecutionData[] = [];
		for (const item of input) out.push({ json: (await send(agent, 'GET', `${access.url}/api/v1/knowledge/${String(item.json.id)}`, headers)) as IDataObject });
		return out;
	};
}

// ---------------------------------------------------------------------------
// Engine and workflows

export let helper: InMemoryCredentialsHelper;
let nodeTypes: ReturnType<typeof loadCommunityPackage>['nodeTypes'];

/** The harness environment, this package from dist/, the raw node, and every credential pointing at `access`. */
export async function setUpEngine(emulator: EmulatorAccess, binaryDataMode: BinaryMode = 'filesystem', packageRoot = ROOT): Promise<void> {
	await initHarnessEnv({ binaryDataMode });
	const loaded = loadCommunityPackage(packageRoot);
	nodeTypes = loaded.nodeTypes;
	nodeTypes.add(new BenchRaw(), 'bench.raw');
	helper = new InMemoryCredentialsHelper(loaded.credentialTypes);
	helper.set(emulatorCredential(emulator, 'knowledgeBase'));
	helper.set(emulatorCredential(emulator, 'taskProjects'));
	helper.set(emulatorCredential(emulator, 'bot'));
	access = emulator;
}

/** The node types of the package setUpEngine loaded (for pollers, list searches and credential tests). */
export function loadedNodeTypes(): ReturnType<typeof loadCommunityPackage>['nodeTypes'] {
	return nodeTypes;
}

/** Removes the n8n user folder and binary store the harness made in the temp folder. */
export function tearDownEngine(): void {
	removeHarnessFolders();
	access = undefined;
}

export async function run(workflow: WorkflowJson): Promise<{ ms: number; result: RunWorkflowResult }> {
	const started = performance.now();
	const result = await runWorkflow({ workflow, nodeTypes, credentialsHelper: helper });
	const ms = performance.now() - started;
	if (result.status !== 'success') throw new Error(`bench workflow failed: ${result.error?.message}`);
	return { ms, result };
}

/** Output items of the node named "Workplace" that are error items (Continue On Fail). */
export const failedItems = (result: RunWorkflowResult) => outputOf(result).filter((item) => item.json.error !== undefined).length;

/** Manual Trigger (pinned items) → one node named "Workplace", whatever its type. */
export function oneNode(node: Omit<INode, 'id' | 'name' | 'position' | 'typeVersion'> & { typeVersion?: number }, items: INodeExecutionData[]): WorkflowJson {
	const workflow = singleNodeWorkflow({}, { items });
	workflow.nodes[1] = { ...workflow.nodes[1], typeVersion: 1, ...node } as INode;
	return workflow;
}

/** The Workplace node's parameters (type version 2 on) for running `parallel` items at a time (from version 4: at most). */
export const inParallel = (parallel: number): INodeParameters => ({ options: { batching: { batch: { requestsInParallel: parallel } } } });
/** What the Workplace node does with Batching left unset in version 2 and 3, for the table. */
export const DEFAULTS_LABEL = `reads ${AUTO_REQUESTS_IN_PARALLEL} at a time`;

/** The Workplace node at type version 2 (a–e's measured version) running `parameters` on `items`. */
export const workplace = (parameters: INodeParameters, items: INodeExecutionData[]) => singleNodeWorkflow(parameters, { items, typeVersion: 2 });

let access: EmulatorAccess | undefined;

/**
 * The Workplace node at `typeVersion` using a Knowledge Base credential of its
 * own, `credentialId`, registered here: what the node learns of a service is
 * kept per credential, so a new id meets the service afresh (a first run) and
 * the same id goes on from what earlier runs taught it.
 */
export function workplaceWith(
	typeVersion: number,
	credentialId: string,
	parameters: INodeParameters,
	items: INodeExecutionData[],
	continueOnFail = false,
): WorkflowJson {
	if (!access) throw new Error('setUpEngine first');
	const credential = emulatorCredential(access, 'knowledgeBase');
	helper.set({ ...credential, id: credentialId, name: credentialId });
	const workflow = singleNodeWorkflow(parameters, { items, typeVersion, continueOnFail });
	const node = workflow.nodes[1];
	node.credentials = { ...node.credentials, [credential.type]: { id: credentialId, name: credentialId } };
	return workflow;
}
export const raw = (job: string, items: INodeExecutionData[]) => oneNode({ type: 'bench.raw', parameters: { job } }, items);
export const outputOf = (result: RunWorkflowResult) => result.items('Workplace');

/**
 * n8n's HTTP Request node (n8n-nodes-base 2.41.1, type version 4.2) sending
 * `GET {base}/api/v1/knowledge/{{ $json.id }}` with options at their defaults.
 * `auth`: the API key as a header parameter typed into the node ("inline"), or
 * the package's Knowledge Base credential as a predefined credential type.
 */
export function httpRequestKbGet(access: EmulatorAccess, auth: 'inline' | 'credential', items: INodeExecutionData[]): WorkflowJson {
	const authentication =
		auth === 'inline'
			? { authentication: 'none', sendHeaders: true, specifyHeaders: 'keypair', headerParameters: { parameters: [{ name: 'x-api-key', value: access.credentials.apiKey }] } }
			: { authentication: 'predefinedCredentialType', nodeCredentialType: 'workplaceKnowledgeBaseApi' };
	return oneNode(
		{
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: { method: 'GET', url: `=${access.url}/api/v1/knowledge/{{ $json.id }}`, ...authentication, options: {} },
		},
		items,
	);
}

/** The emulator in a child process (emulator-child.ts), so its CPU and memory are not counted with the client's; `env` is added to this process's. */
export async function startEmulatorChild(env: Record<string, string> = {}): Promise<{ child: ChildProcess; ready: ChildReady }> {
	const child = fork(path.join(__dirname, 'emulator-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...env } });
	return { child, ready: await askChild<ChildReady>(child, {}, 'ready') };
}

/**
 * Runs `task` in a fresh process of `script` (a bench's *-child.js, which sends
 * one message of figures and exits): its figures, or an error naming `what`
 * when it exits without them. The child ends with this process (endsWithBench).
 */
export function measureInChild<Figures>(script: string, task: object, what: string, options: { execArgv?: string[]; stdout?: 'inherit' | 'ignore' } = {}): Promise<Figures> {
	return new Promise((resolve, reject) => {
		const child = fork(path.join(__dirname, script), [], { execArgv: options.execArgv ?? process.execArgv, stdio: ['ignore', options.stdout ?? 'inherit', 'inherit', 'ipc'] });
		let figures: Figures | undefined;
		child.once('message', (message: Figures) => (figures = message));
		child.once('exit', (code) => (figures ? resolve(figures) : reject(new Error(`${what}: child exited with ${code}`))));
		child.send(task);
	});
}

/** A request to the emulator's admin routes (/__emulator…): the parsed JSON answer (none for 204); a failure status throws. */
export async function emulatorAdmin<T = unknown>(emulator: EmulatorAccess, method: string, route: string, body?: unknown): Promise<T> {
	const response = await fetch(`${emulator.url}/__emulator${route}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	// The emulator says what it refused (a fault rule it could not read, a bad throttle setting).
	if (!response.ok) throw new Error(`admin ${method} ${route} answered ${response.status}: ${await response.text()}`);
	return (response.status === 204 ? undefined : await response.json()) as T;
}

/** What an interrupted bench (Ctrl-C, a kill) must still stop: its `finally` blocks do not run then (its temp folders go with exitOnInterrupt). */
const onInterrupt = new Set<() => void>();

/** Runs `cleanup` should the bench be interrupted; the function returned cancels that. */
export function onInterrupted(cleanup: () => void): () => void {
	onInterrupt.add(cleanup);
	return () => onInterrupt.delete(cleanup);
}

/** Runs a benchmark's main: a failure is printed and sets the exit code; an interrupt runs the onInterrupted clean-ups, removes the temp folders (exitOnInterrupt) and exits. */
export function runBench(main: () => Promise<void>): void {
	exitOnInterrupt(() => {
		for (const cleanup of onInterrupt) cleanup();
	});
	main().catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});
}

/** Sends `message` to a child (none when empty) and resolves its first answer of `kind`. */
export function askChild<T>(child: ChildProcess, message: object, kind: string): Promise<T> {
	return new Promise((resolve) => {
		const listener = (answer: { kind: string }) => {
			if (answer.kind !== kind) return;
			child.off('message', listener);
			resolve(answer as T);
		};
		child.on('message', listener);
		if (Object.keys(message).length > 0) child.send(message);
	});
}

// ---------------------------------------------------------------------------
// Measuring and printing

export const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const mid = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Runs each variant `runs` times, taking turns; returns the median of each. */
export async function measure(variants: Record<string, () => Promise<number>>, runs: number): Promise<Record<string, number>> {
	const times: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
	for (let r = 0; r < runs; r++) {
		for (const [name, variant] of Object.entries(variants)) times[name].push(await variant());
	}
	return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
}

export interface Row {
	part: string;
	what: string;
	value: string;
	ratio?: string;
	goal?: string;
}

function settle(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (gc) {
		gc();
		gc();
	}
}

/**
 * Runs `work` after a forced GC (with --expose-gc) and a 200 ms pause, and
 * returns the RSS just before it and the highest RSS sampled (every 2 ms) while it ran.
 */
export async function peakRss(work: () => Promise<void>): Promise<{ before: number; peak: number }> {
	settle();
	await new Promise((resolve) => setTimeout(resolve, 200));
	const before = process.memoryUsage.rss();
	let peak = before;
	const sample = () => {
		const rss = process.memoryUsage.rss();
		if (rss > peak) peak = rss;
	};
	const timer = setInterval(sample, 2);
	try {
		await work();
	} finally {
		sample();
		clearInterval(timer);
	}
	return { before, peak };
}

export const ms = (v: number) => `${v.toFixed(3)} ms/item`;
export const x = (v: number) => `${v.toFixed(2)}×`;
export const check = (ok: boolean, goal: string) => `${goal} ${ok ? '✓' : '✗'}`;

/**
 * Prints a benchmark's table and writes what it measured to build/<name>.json,
 * with Node's version; with a bar chart that has panels, draws it
 * (drawBarChart) and keeps it there, for `npm run bench:chart`.
 */
export function saveResults(name: string, rows: Row[], figures: object, chart?: BarChart): void {
	printTable(rows);
	mkdirSync(path.join(ROOT, 'build'), { recursive: true });
	const drawn = chart && chart.panels.length > 0 ? chart : undefined;
	writeFileSync(path.join(ROOT, `build/${name}.json`), `${JSON.stringify({ node: process.version, ...figures, rows, ...(drawn ? { chart: drawn } : {}) }, null, 2)}\n`);
	if (drawn) console.log(`Chart: ${path.relative(ROOT, drawBarChart(drawn))}`);
}

export function printTable(rows: Row[]): void {
	const widths = { part: 0, what: 0, value: 0, ratio: 0 };
	for (const row of rows) {
		widths.part = Math.max(widths.part, row.part.length);
		widths.what = Math.max(widths.what, row.what.length);
		widths.value = Math.max(widths.value, row.value.length);
		widths.ratio = Math.max(widths.ratio, (row.ratio ?? '').length);
	}
	console.log('');
	for (const row of rows) {
		console.log(
			[row.part.padEnd(widths.part), row.what.padEnd(widths.what), row.value.padStart(widths.value), (row.ratio ?? '').padEnd(widths.ratio), row.goal ?? '']
				.join('  ')
				.trimEnd(),
		);
	}
}
