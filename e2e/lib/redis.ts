/**
 * A private Redis for queue mode: Debian's redis-server on a free port of
 * 127.0.0.1, a temp working directory, no persistence (no RDB snapshots, no
 * AOF), stopped and removed by stop(). Never the machine's own Redis.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { freePort, stopProcess } from '../../testbed/n8n';
import { until } from '../../testbed/until';
import { ServerProcess } from './serverProcess';

export const REDIS_BIN = 'redis-server';

export function assertRedisInstalled(): void {
	if (spawnSync(REDIS_BIN, ['--version']).error) {
		throw new Error(`${REDIS_BIN} is not installed (Debian: apt-get install -y redis-server)`);
	}
}

export class Redis extends ServerProcess {
	readonly host = '127.0.0.1';
	port = 0;
	readonly output: string[] = [];

	/** Environment that puts n8n (main and workers) in queue mode on this Redis. */
	get queueEnv(): Record<string, string> {
		return {
			EXECUTIONS_MODE: 'queue',
			QUEUE_BULL_REDIS_HOST: this.host,
			QUEUE_BULL_REDIS_PORT: String(this.port),
		};
	}

	/** Starts redis-server and resolves once it answers PING. */
	async start(timeoutMs = 30_000): Promise<void> {
		assertRedisInstalled();
		this.port = await freePort();
		this.dir = mkdtempSync(path.join(os.tmpdir(), 'workplace-redis-'));
		const child = spawn(
			REDIS_BIN,
			[
				'--port', String(this.port),
				'--bind', this.host,
				'--dir', this.dir,
				'--save', '',
				'--appendonly', 'no',
				'--daemonize', 'no',
				'--logfile', '',
			],
			{ stdio: ['ignore', 'pipe', 'pipe'] },
		);
		this.child = child;
		for (const stream of [child.stdout, child.stderr]) stream?.on('data', (chunk: Buffer) => this.output.push(chunk.toString()));
		await until('redis-server to answer PING', async () => ((await this.command('PING')) === '+PONG' ? true : undefined), timeoutMs, {
			everyMs: 200,
			process: { name: 'redis-server', child, output: () => this.output.join('') },
		});
	}

	/** One inline command, e.g. `PING` or `DBSIZE`; resolves with the first reply line. */
	async command(line: string): Promise<string> {
		return await new Promise((resolve, reject) => {
			const socket = connect(this.port, this.host);
			let reply = '';
			socket.setTimeout(5_000, () => socket.destroy(new Error('redis: no reply')));
			socket.once('error', reject);
			socket.on('data', (chunk: Buffer) => {
				reply += chunk.toString();
				const end = reply.indexOf('\r\n');
				if (end >= 0) {
					socket.end();
					resolve(reply.slice(0, end));
				}
			});
			socket.write(`${line}\r\n`);
		});
	}

	/** Stops redis-server (SIGTERM, SIGKILL after 10 s) and removes its directory. */
	async stop(): Promise<void> {
		if (this.child) await stopProcess(this.child, 10_000);
		this.removeNow();
	}
}
