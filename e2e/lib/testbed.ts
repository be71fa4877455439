/**
 * The end-to-end suites' test bed: the emulator and a real n8n with this
 * package installed as a community package, the credentials and workflows a
 * suite names imported and published, n8n started and the owner signed in;
 * in queue mode also a private PostgreSQL 17 and Redis, n8n main and N
 * workers. Every e2e suite gets its bed from e2eTestbed(), as every jest
 * suite gets its own from suiteTestbed() (testbed/testbed.ts): started before
 * the suite's first test, stopped and deleted after its last.
 *
 * The n8n processes themselves are testbed/n8n.ts's, which `npm run dev` uses too.
 */
import { createHmac } from 'node:crypto';
import path from 'node:path';

import type { CredentialType } from '../../emulator/clientCredentials';
import { startEmulator, type Emulator, type StartOptions } from '../../emulator/server';
import { exampleCredential } from '../../testbed/examples';
import {
	E2E_DIR,
	N8n,
	N8nRest,
	freePort,
	hasEnded,
	installCommunityPackage,
	n8nInstall,
	type ExecutionSummary,
	type N8nInstall,
	type StoredCredential,
} from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { listeningUrls, productionWebhookUrl, waitForTriggerWebhook } from '../../testbed/n8nWebhooks';
import { Postgres } from './postgres';
import { Redis } from './redis';

/** A workflow as `n8n import:workflow` takes it. */
export type ImportedWorkflow = Record<string, unknown> & { id: string; nodes: Array<{ name: string; type: string; webhookId?: string; parameters?: Record<string, unknown> }> };

export interface E2eTestbedOptions {
	/** The emulator's settings (a test may change them later with emulator.setConfig). */
	emulator?: StartOptions;
	/** false: the emulator alone, no n8n (the play page suite). */
	n8n?: boolean;
	/** Which n8n runs: e2e/'s (2.41.1) by default; selectedInstall() honours E2E_N8N_VERSION. */
	install?: N8nInstall;
	/** Extra environment of every n8n process (e.g. N8N_DEFAULT_BINARY_DATA_MODE). */
	env?: Record<string, string>;
	/**
	 * The credentials imported: an example credential by type (pointing at the
	 * emulator), or one built from the emulator. Default: the example credential of every type.
	 */
	credentials?: Array<CredentialType | ((emulator: Emulator) => StoredCredential)>;
	/** Workflows imported before n8n starts. */
	workflows?: ImportedWorkflow[];
	/** Which of them run on their triggers (published before n8n starts): true for all, or their ids. Default none. */
	publish?: boolean | string[];
	/** false: n8n is not started with the bed; `server()` starts it (suites that run `n8n execute` first). */
	start?: boolean;
	/**
	 * Queue mode: PostgreSQL 17, Redis, main and this many workers, each running
	 * this many jobs at once; and `webhooks` webhook processes (`n8n webhook`)
	 * serving webhooks and waiting webhooks beside main.
	 */
	queue?: { workers: number; concurrency: number; webhooks?: number };
}

/** The n8n a suite runs: e2e/'s (2.41.1), or with E2E_N8N_VERSION=1.85.4 the one in e2e/versions/1.85.4. */
export function selectedInstall(): N8nInstall {
	const version = process.env.E2E_N8N_VERSION;
	return version ? n8nInstall(path.join(E2E_DIR, 'versions', version)) : n8nInstall();
}

/**
 * The suite's bed: registers the beforeAll that starts it and the afterAll
 * that stops every process and deletes every folder it made. Call it at the
 * top of the suite (or of a describe block); a suite's own beforeAll
 * registered after it runs once the bed is up.
 */
export function e2eTestbed(options: E2eTestbedOptions = {}): E2eTestbed {
	const bed = new E2eTestbed(options);
	beforeAll(async () => await bed.start(), 900_000);
	afterAll(async () => await bed.close(), 180_000);
	return bed;
}

export class E2eTestbed {
	private emulatorInstance?: Emulator;
	private mainInstance?: N8n;
	readonly workers: N8n[] = [];
	/** Queue mode's webhook processes (their `url` once started). */
	readonly webhookProcesses: N8n[] = [];
	postgres?: Postgres;
	redis?: Redis;
	private session?: N8nRest;
	private port = 0;
	private running = false;
	private readonly published: ImportedWorkflow[];

	constructor(private readonly options: E2eTestbedOptions) {
		const workflows = options.workflows ?? [];
		const publish = options.publish ?? false;
		this.published = publish === true ? workflows : publish === false ? [] : workflows.filter((w) => publish.includes(w.id));
	}

	get emulator(): Emulator {
		if (!this.emulatorInstance) throw new Error('the e2e test bed is not started (e2eTestbed starts it in beforeAll)');
		return this.emulatorInstance;
	}

	/** n8n (main in queue mode): its user folder, CLI commands, output. */
	get n8n(): N8n {
		if (!this.mainInstance) throw new Error('the e2e test bed has no n8n (not started, or started with n8n: false)');
		return this.mainInstance;
	}

	/** The n8n REST API, signed in as the owner, once n8n runs. */
	get rest(): N8nRest {
		if (!this.session || !this.running) throw new Error('n8n is not running (start: false: call server() first)');
		return this.session;
	}

	/** n8n's address, e.g. http://localhost:5678, once it runs. */
	get url(): string {
		return this.n8n.url;
	}

	async start(): Promise<void> {
		const { options } = this;
		this.emulatorInstance = await startEmulator(options.emulator);
		if (options.n8n === false) return;
		const env: Record<string, string> = {};
		this.port = await freePort();
		if (options.queue) {
			this.postgres = new Postgres();
			await this.postgres.start();
			this.redis = new Redis();
			await this.redis.start();
			// Workers build the resume URLs of waiting executions: as in production,
			// WEBHOOK_URL tells every process main's address.
			Object.assign(env, this.redis.queueEnv, this.postgres.n8nEnv, { WEBHOOK_URL: `http://localhost:${this.port}/` });
		}
		// E2E_ECHO=1 shows what n8n prints, while it runs.
		const common = { install: options.install, env: { ...env, ...options.env }, echo: process.env.E2E_ECHO ? process.stderr : undefined };
		const main = new N8n(common);
		this.mainInstance = main;
		// The workers load the community package from main's user folder; the data is in PostgreSQL.
		for (let n = 0; n < (options.queue?.workers ?? 0); n++) this.workers.push(new N8n({ ...common, userFolder: main.userFolder }));
		for (let n = 0; n < (options.queue?.webhooks ?? 0); n++) this.webhookProcesses.push(new N8n({ ...common, userFolder: main.userFolder }));
		await installCommunityPackage(main.userFolder);
		const credentials = (options.credentials ?? ['workplaceKnowledgeBaseApi', 'workplaceTaskProjectsApi', 'workplaceBotApi']).map((credential) =>
			typeof credential === 'function' ? credential(this.emulator) : exampleCredential(this.emulator, credential),
		);
		if (credentials.length) await main.importCredentials(credentials);
		if (options.workflows?.length) await main.importWorkflows(options.workflows);
		for (const workflow of this.published) await main.publish(workflow.id);
		if (options.start !== false) await this.server();
	}

	/**
	 * Starts n8n when it is not running (main on the bed's port, then the
	 * workers), signs the owner in, and waits until n8n has registered the
	 * webhooks the published workflows' Workplace and MCP Server Triggers listen on; its REST session.
	 */
	async server(): Promise<N8nRest> {
		if (!this.running) {
			await this.n8n.start(this.port);
			await Promise.all(this.workers.map((worker) => worker.startWorker(this.options.queue?.concurrency)));
			await Promise.all(this.webhookProcesses.map((process) => process.startWebhookProcess()));
			this.running = true;
			this.session ??= new N8nRest(this.n8n.url);
			await this.session.signIn();
			for (const workflow of this.published) for (const url of listeningUrls(this.url, workflow)) await waitForTriggerWebhook(url);
		}
		return this.rest;
	}

	/** Stops n8n (workers first), keeping its user folder and database. */
	async stopN8n(): Promise<void> {
		this.running = false;
		// Each on its own, so one failing stop still lets the others run.
		for (const worker of [...this.webhookProcesses, ...this.workers]) await worker.stop().catch(() => undefined);
		await this.mainInstance?.stop().catch(() => undefined);
	}

	/** n8n stopped and started again on the same port (links it sent still point at it). */
	async restart(): Promise<N8nRest> {
		await this.stopN8n();
		return await this.server();
	}

	/** Makes an imported workflow run on its triggers from n8n's next start on. */
	async publish(workflow: ImportedWorkflow): Promise<void> {
		await this.n8n.publish(workflow.id);
		if (!this.published.includes(workflow)) this.published.push(workflow);
	}

	async close(): Promise<void> {
		await this.stopN8n();
		await this.redis?.stop().catch(() => undefined);
		await this.postgres?.stop().catch(() => undefined);
		await this.emulatorInstance?.close().catch(() => undefined);
		// Last: the workers' processes ran on main's folder.
		this.mainInstance?.removeUserFolder();
	}

	/**
	 * Kills every process of the bed at once (n8n's with their task runners,
	 * PostgreSQL's, Redis) and deletes its folders: for a process being
	 * interrupted, which cannot wait for close(). The emulator, in this process,
	 * ends with it; its folder is one of the temp folders exitOnInterrupt removes.
	 */
	stopNow(): void {
		for (const n8n of [...this.webhookProcesses, ...this.workers]) n8n.stopNow();
		this.mainInstance?.stopNow();
		this.redis?.stopNow();
		this.postgres?.stopNow();
	}

	/** The production URL of a workflow's Workplace Trigger. */
	triggerUrl(workflow: Parameters<typeof productionWebhookUrl>[1]): string {
		return productionWebhookUrl(this.url, workflow);
	}

	/** Everything the n8n processes printed (main, workers, webhook processes). */
	printed(): string {
		return [this.n8n, ...this.workers, ...this.webhookProcesses].map((n) => n.output.join('')).join('');
	}

	/** A body's X-Eko-Signature as the service makes it: base64 HMAC-SHA256 keyed with the bot's client secret. */
	sign(body: Buffer | string, key = this.emulator.credentials.clientSecret): string {
		return createHmac('sha256', key).update(body).digest('base64');
	}

	/** Waits until a workflow has `total` executions and all have ended (REST: one page, up to 100). */
	async executionsEnded(workflowId: string, total: number): Promise<ExecutionSummary[]> {
		return await until(`${total} finished executions of ${workflowId}`, async () => {
			const list = await this.rest.executions(workflowId);
			return list.length >= total && list.every((e) => hasEnded(e.status)) ? list : undefined;
		});
	}

	/** Queue mode: a workflow's executions read from PostgreSQL (no page limit), oldest first. */
	async storedExecutions(workflowId: string): Promise<Array<{ id: string; status: string; mode: string }>> {
		if (!this.postgres) throw new Error('storedExecutions needs queue mode (PostgreSQL)');
		const rows = await this.postgres.query(`SELECT id, status, mode FROM execution_entity WHERE "workflowId" = '${workflowId.replace(/'/g, "''")}' ORDER BY id`);
		return rows.map((row) => ({ id: String(row.id), status: String(row.status), mode: String(row.mode) }));
	}
}

/**
 * An OpenAI credential for n8n's OpenAI Chat Model pointing at the emulator's
 * scripted OpenAI-compatible endpoint (no network, no model): for the AI suites' credentials option.
 */
export function scriptedOpenAiCredential(reference: { id: string; name: string }): (emulator: Emulator) => StoredCredential {
	return (emulator) => ({ ...reference, type: 'openAiApi', data: { apiKey: emulator.credentials.apiKey, url: `${emulator.url}/v1` } });
}

/** Every match of a pattern in what n8n processes printed (each with its groups). */
export function matchesIn(output: string[] | string, pattern: RegExp): RegExpMatchArray[] {
	const text = Array.isArray(output) ? output.join('') : output;
	return [...text.matchAll(new RegExp(pattern.source, 'g'))];
}
