/**
 * Preloaded (NODE_OPTIONS=--require, see sqliteBusyTimeoutEnv in n8n.ts) into
 * n8n processes that share one SQLite file: queue mode's main and worker.
 *
 * n8n opens SQLite without a busy timeout (it supports scaling mode only with
 * PostgreSQL and says so at start), so when the main and a worker write at the
 * same moment one of them fails at once with SQLITE_BUSY: a webhook answered
 * 500, or an execution failed. This gives every connection SQLite's own busy
 * timeout, so a writer waits for the lock instead. It changes nothing but that.
 */
import path from 'node:path';

interface SqliteDatabase {
	configure(option: 'busyTimeout', value: number): void;
}

const timeoutMs = Number(process.env.WORKPLACE_E2E_SQLITE_BUSY_TIMEOUT_MS ?? '30000');

let sqlite3: { Database: { prototype: Record<string, unknown> } } | undefined;
try {
	// The sqlite3 n8n will load: resolved from the n8n script this process runs.
	const resolved = require.resolve('sqlite3', { paths: [path.dirname(process.argv[1] ?? '')] });
	sqlite3 = require(resolved) as typeof sqlite3;
} catch {
	// Not an n8n process (e.g. a task runner it starts): nothing to patch.
}

if (sqlite3) {
	const proto = sqlite3.Database.prototype;
	const configured = new WeakSet<object>();
	for (const name of ['run', 'all', 'get', 'each', 'exec', 'prepare']) {
		const original = proto[name] as (...args: unknown[]) => unknown;
		proto[name] = function (this: SqliteDatabase, ...args: unknown[]) {
			if (!configured.has(this)) {
				configured.add(this);
				// Queued by sqlite3 until the connection is open, like any other call.
				this.configure('busyTimeout', timeoutMs);
			}
			return original.apply(this, args);
		};
	}
}
