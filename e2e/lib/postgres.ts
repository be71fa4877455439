/**
 * A private PostgreSQL cluster for queue mode: Debian's PostgreSQL 15 binaries
 * (/usr/lib/postgresql/15/bin, package postgresql-15), initdb into a temp
 * folder, listening on a free port of 127.0.0.1 with its unix socket in that
 * folder, trust authentication for the one role n8n uses. stop() shuts it down
 * and deletes the folder. Never the machine's own cluster.
 *
 * PostgreSQL refuses to run as root: as root, the cluster belongs to the
 * `postgres` user the Debian package creates and every command runs through
 * `runuser -u postgres`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

import { freePort, stopProcess } from '../../testbed/n8n';

const run = promisify(execFile);

/** PostgreSQL's server binaries: POSTGRES_BIN_DIR, else the newest of Debian's /usr/lib/postgresql/<major>/bin. */
export function postgresBinDir(): string {
	if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
	const base = '/usr/lib/postgresql';
	const majors = existsSync(base) ? readdirSync(base).filter((name) => existsSync(path.join(base, name, 'bin', 'postgres'))) : [];
	if (!majors.length) throw new Error('PostgreSQL is not installed (Debian: apt-get install -y postgresql-15)');
	majors.sort((a, b) => Number(b) - Number(a));
	return path.join(base, majors[0], 'bin');
}

export class Postgres {
	readonly host = '127.0.0.1';
	readonly user = 'n8n';
	readonly database = 'n8n';
	port = 0;
	/** Server version, e.g. "15.18", once started. */
	version = '';
	readonly output: string[] = [];
	private dir?: string;
	private child?: ChildProcess;
	private readonly bin = postgresBinDir();
	/** As root, the OS user the cluster runs as. */
	private readonly osUser = process.getuid?.() === 0 ? 'postgres' : undefined;

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

	/** initdb, start the server, create n8n's database; resolves once it accepts connections. */
	async start(timeoutMs = 60_000): Promise<void> {
		this.dir = mkdtempSync(path.join(os.tmpdir(), 'workplace-postgres-'));
		if (this.osUser) {
			const { stdout } = await run('id', ['-u', this.osUser]);
			const { stdout: gid } = await run('id', ['-g', this.osUser]);
			chownSync(this.dir, Number(stdout), Number(gid));
		}
		await this.exec('initdb', ['-D', this.dataDir, '-U', this.user, '--auth=trust', '--encoding=UTF8', '--no-sync']);
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
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			if (child.exitCode !== null) throw new Error(`postgres exited with ${child.exitCode}:\n${this.output.join('')}`);
			const ready = await this.exec('pg_isready', ['-h', this.dir, '-p', String(this.port), '-U', this.user]).then(
				() => true,
				() => false,
			);
			if (ready) break;
			if (Date.now() > deadline) throw new Error(`postgres did not accept connections within ${timeoutMs / 1000} s:\n${this.output.join('')}`);
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
		await this.exec('createdb', ['-h', this.dir, '-p', String(this.port), '-U', this.user, this.database]);
		this.version = (await this.sql('SHOW server_version')).trim();
	}

	/** One SQL statement through psql over the unix socket; its rows, unaligned and tuples only. */
	async sql(statement: string): Promise<string> {
		return await this.exec('psql', [
			'-h', this.dir as string, '-p', String(this.port), '-U', this.user, '-d', this.database,
			'-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', statement,
		]);
	}

	/** Fast shutdown (SIGINT: PostgreSQL's "fast" mode), SIGKILL after 20 s; then deletes the cluster's folder. */
	async stop(): Promise<void> {
		if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
			// runuser passes the signal on to postgres; pg_ctl is the fallback if it did not.
			await this.exec('pg_ctl', ['stop', '-D', this.dataDir, '-m', 'fast', '-w']).catch(() => undefined);
			await stopProcess(this.child, 20_000);
		}
		this.child = undefined;
		if (this.dir) rmSync(this.dir, { recursive: true, force: true });
		this.dir = undefined;
	}
}
