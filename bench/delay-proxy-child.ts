/**
 * A slow, encrypted link for the benchmark, in its own process so the client's
 * CPU load does not stretch its delays: clients connect over TLS to a relay on
 * 127.0.0.1 that holds every chunk for `oneWayMs` in each direction, then to a
 * TLS terminator that passes the plain bytes to the emulator, one upstream
 * connection per client connection. So handshakes pay the round trips too.
 *
 *   client ──TLS──▶ relay (delay, counts TCP connections) ──▶ TLS terminator ──▶ emulator
 *
 * A userland relay accepts a connection at once, where a real link spends one
 * round trip on TCP's handshake before the client can send; the relay adds that
 * round trip to the first bytes a client sends. Configured by the parent over
 * IPC; exits when the parent says so or goes away, and after BENCH_PROXY_MAX_MS.
 */
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import * as tls from 'node:tls';

import { endsWithBench } from './childProcess';

export interface ProxyConfig {
	kind: 'start';
	certFile: string;
	keyFile: string;
	/** The emulator's http:// address on 127.0.0.1. */
	target: string;
	oneWayMs: number;
}

export interface ProxyReady {
	kind: 'ready';
	url: string;
}

type Message = ProxyConfig | { kind: 'connections' } | { kind: 'close' };

const sockets = new Set<net.Socket>();
let connections = 0;

/**
 * Forwards `from` to `to`, each chunk `delayMs` after it arrived (the first
 * `firstExtraMs` later still), in order; end and errors follow the same delay.
 */
function delayedPipe(from: net.Socket, to: net.Socket, delayMs: number, firstExtraMs: number): void {
	const queue: Array<{ at: number; chunk: Buffer | null }> = [];
	let timer: NodeJS.Timeout | undefined;
	let last = 0;
	let first = true;
	const flush = () => {
		timer = undefined;
		const now = performance.now();
		while (queue.length > 0 && queue[0].at <= now + 0.5) {
			const { chunk } = queue.shift()!;
			if (to.destroyed) return;
			if (chunk === null) to.end();
			else to.write(chunk);
		}
		if (queue.length > 0) timer = setTimeout(flush, Math.max(0, queue[0].at - now));
	};
	const push = (chunk: Buffer | null) => {
		const at = Math.max(performance.now() + delayMs + (first ? firstExtraMs : 0), last);
		first = false;
		last = at;
		queue.push({ at, chunk });
		if (!timer) timer = setTimeout(flush, Math.max(0, at - performance.now()));
	};
	let ended = false;
	from.on('data', (chunk: Buffer) => push(chunk));
	from.on('end', () => {
		ended = true;
		push(null);
	});
	from.on('close', () => {
		// A reset (a close without an end) travels the link too, behind the bytes before it.
		if (!ended) setTimeout(() => to.destroy(), Math.max(0, last - performance.now()) + 1).unref();
	});
}

function track(socket: net.Socket): net.Socket {
	sockets.add(socket);
	socket.on('close', () => sockets.delete(socket));
	socket.on('error', () => socket.destroy());
	socket.setNoDelay(true);
	return socket;
}

function start(config: ProxyConfig): void {
	const target = new URL(config.target);
	const terminator = tls.createServer({ cert: readFileSync(config.certFile), key: readFileSync(config.keyFile) }, (secure) => {
		track(secure);
		const upstream = track(net.connect(Number(target.port), '127.0.0.1'));
		// pipe() passes each end on once the bytes before it are written; only a reset cuts the other side.
		secure.pipe(upstream).pipe(secure);
		secure.on('close', () => secure.readableEnded || upstream.destroy());
		upstream.on('close', () => upstream.readableEnded || secure.destroy());
	});
	terminator.on('tlsClientError', () => undefined);
	terminator.listen(0, '127.0.0.1', () => {
		const terminatorPort = (terminator.address() as net.AddressInfo).port;
		const relay = net.createServer((client) => {
			connections++;
			track(client);
			const inner = track(net.connect(terminatorPort, '127.0.0.1'));
			delayedPipe(client, inner, config.oneWayMs, 2 * config.oneWayMs);
			delayedPipe(inner, client, config.oneWayMs, 0);
		});
		relay.listen(0, '127.0.0.1', () => {
			const ready: ProxyReady = { kind: 'ready', url: `https://127.0.0.1:${(relay.address() as net.AddressInfo).port}` };
			process.send!(ready);
		});
	});
}

function stop(): void {
	for (const socket of sockets) socket.destroy();
	process.exit(0);
}

process.on('message', (message: Message) => {
	if (message.kind === 'start') start(message);
	else if (message.kind === 'connections') process.send!({ kind: 'connections', count: connections });
	else if (message.kind === 'close') stop();
});
// Stops by itself: when the parent goes away, and after a bounded time whatever happens.
endsWithBench(stop);
setTimeout(stop, Number(process.env.BENCH_PROXY_MAX_MS ?? 30 * 60_000)).unref();
