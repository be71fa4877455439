/**
 * A slow, encrypted link: a certificate made for this run (openssl, Debian's),
 * a delaying TLS proxy in front of the emulator (delay-proxy-child.ts) that
 * counts TCP connections, and the measured clients in a child started with
 * NODE_EXTRA_CA_CERTS (slow-link-child.ts). Bench part e (100 Gets) and the
 * adaptive benchmark measure over it. Everything listens on 127.0.0.1; the
 * temp folder and both children are gone when a measurement returns.
 */
import { execFileSync } from 'node:child_process';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import type { EmulatorAccess } from '../emulator/clientCredentials';
import { makeTempFolder, removeTempFolder } from '../emulator/common/tempFolders';
import { MAX_REQUESTS_IN_PARALLEL } from '../nodes/Workplace/actions/requestSettings';
import { writeLineChart } from './chart';
import { askChild, check, DEFAULTS_LABEL, int, ms, x, type Row } from './common';
import { ROOT } from '../testbed/root';
import type { ProxyConfig, ProxyReady } from './delay-proxy-child';
import type { LinkMeasure, LinkResults, LinkVariant } from './slow-link-child';

const ONE_WAY_MS = int('BENCH_ONE_WAY_MS', 10);
const ITEMS = int('BENCH_SLOW_ITEMS', 100);
const RUNS = int('BENCH_SLOW_RUNS', 3);
/** The node's highest Requests in Parallel. */
const HIGHEST = MAX_REQUESTS_IN_PARALLEL;
const PARALLELISM = [1, 2, 4, 8, 16, 32, 64, HIGHEST];

/** A self-signed certificate for 127.0.0.1, valid one day, in `dir`. */
export function makeCertificate(dir: string): { certFile: string; keyFile: string } {
	const certFile = path.join(dir, 'cert.pem');
	const keyFile = path.join(dir, 'key.pem');
	execFileSync(
		'openssl',
		['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
			'-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile],
		{ stdio: 'ignore' },
	);
	return { certFile, keyFile };
}

/** Measures clients over the link: `items` Gets each, medians of `runs`. */
export type MeasureOverLink = (items: number, runs: number, variants: LinkVariant[]) => Promise<Omit<LinkResults, 'kind'>>;

/**
 * A slow, encrypted link in front of the emulator for as long as `work` runs:
 * the certificate, the delaying TLS proxy and the clients' process, gone when it returns.
 */
export async function overSlowLink<T>(emulator: EmulatorAccess, work: (measureOverLink: MeasureOverLink, oneWayMs: number) => Promise<T>): Promise<T> {
	const dir = makeTempFolder('workplace-bench-tls-');
	const children: ChildProcess[] = [];
	try {
		const { certFile, keyFile } = makeCertificate(dir);
		const proxy = fork(path.join(__dirname, 'delay-proxy-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
		children.push(proxy);
		const config: ProxyConfig = { kind: 'start', certFile, keyFile, target: emulator.url, oneWayMs: ONE_WAY_MS };
		const { url } = await askChild<ProxyReady>(proxy, config, 'ready');

		// NODE_EXTRA_CA_CERTS is read once, at start-up: the clients get a process of their own.
		const clients = fork(path.join(__dirname, 'slow-link-child.js'), [], {
			stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
			env: { ...process.env, NODE_EXTRA_CA_CERTS: certFile },
		});
		children.push(clients);
		clients.on('message', (message: { kind: string }) => {
			if (message.kind !== 'connections') return;
			void askChild<{ count: number }>(proxy, { kind: 'connections' }, 'connections').then(({ count }) => clients.send({ kind: 'connections', count }));
		});
		const exited = new Promise<never>((_, reject) => clients.once('exit', (code) => reject(new Error(`the link's clients' process exited (${code})`))));
		exited.catch(() => undefined);
		const measureOverLink: MeasureOverLink = async (items, runs, variants) => {
			const start: LinkMeasure = { kind: 'measure', access: { ...emulator, url }, items, runs, variants };
			const { msPerItem, connections } = await Promise.race([askChild<LinkResults>(clients, start, 'results'), exited]);
			return { msPerItem, connections };
		};
		return await work(measureOverLink, ONE_WAY_MS);
	} finally {
		for (const child of children) if (child.connected) child.send({ kind: 'close' });
		removeTempFolder(dir);
	}
}

/** Part e: 100 Gets over the link, the raw clients, the HTTP Request node and the node (version 2) at its defaults and at each parallelism. */
export async function slowLink(emulator: EmulatorAccess): Promise<{ rows: Row[]; results: IDataObject }> {
	const variants: LinkVariant[] = [
		{ name: 'rawKeepAlive', kind: 'rawKeepAlive' },
		{ name: 'rawClose', kind: 'rawClose' },
		{ name: 'httpRequest', kind: 'httpRequest', auth: 'inline' },
		{ name: 'nodeDefaults', kind: 'workplace', typeVersion: 2 },
		...PARALLELISM.map((p): LinkVariant => ({ name: `node${p}`, kind: 'workplace', typeVersion: 2, parallel: p })),
	];
	const { msPerItem: m, connections: c } = await overSlowLink(emulator, async (measureOverLink) => await measureOverLink(ITEMS, RUNS, variants));

	const rows: Row[] = [];
	const conns = (name: string) => `${c[name]} conn${c[name] === 1 ? '' : 's'}`;
	const value = (name: string) => `${ms(m[name])}, ${conns(name)}`;
	const label = `e. ${ITEMS} × Knowledge Base → Get, TLS, ${2 * ONE_WAY_MS} ms round trip`;
	rows.push({ part: label, what: 'raw keep-alive client, one at a time', value: value('rawKeepAlive'), ratio: '1.00× (baseline)' });
	rows.push({ part: '', what: 'raw client, new connection per request', value: value('rawClose'), ratio: x(m.rawClose / m.rawKeepAlive) });
	rows.push({ part: '', what: 'HTTP Request node 4.2, defaults, header inline', value: value('httpRequest'), ratio: x(m.httpRequest / m.rawKeepAlive) });
	rows.push({
		part: '',
		what: `Workplace node, defaults (${DEFAULTS_LABEL})`,
		value: value('nodeDefaults'),
		ratio: x(m.nodeDefaults / m.rawKeepAlive),
		goal: check(m.nodeDefaults / m.rawKeepAlive <= 0.5, 'node/raw keep-alive ≤ 0.5'),
	});
	for (const p of PARALLELISM) {
		rows.push({ part: '', what: `Workplace node, ${p} in parallel`, value: value(`node${p}`), ratio: x(m[`node${p}`] / m.rawKeepAlive) });
	}
	rows.push({ part: '', what: 'node defaults / HTTP Request node', value: '', ratio: x(m.nodeDefaults / m.httpRequest), goal: check(m.nodeDefaults / m.httpRequest <= 2.5, '≤ 2.5') });
	rows.push({
		part: '',
		what: `node at its highest setting (${HIGHEST}) / HTTP Request node`,
		value: '',
		ratio: x(m[`node${HIGHEST}`] / m.httpRequest),
		goal: check(m[`node${HIGHEST}`] / m.httpRequest <= 1, '≤ 1.0'),
	});

	mkdirSync(path.join(ROOT, 'docs'), { recursive: true });
	writeLineChart(
		path.join(ROOT, 'docs/performance-slow-link.png'),
		`Knowledge Base → Get over TLS, ${2 * ONE_WAY_MS} ms round trip: time per item`,
		'Requests in Parallel',
		'time per item (ms, median, log scale)',
		PARALLELISM.map((p) => ({ x: p, y: m[`node${p}`] })),
		`${ITEMS} Gets per run, median of ${RUNS} runs, n8n-core engine, delaying TLS proxy on 127.0.0.1 (npm run bench)`,
		[
			{ label: 'raw keep-alive client, one at a time', y: m.rawKeepAlive },
			{ label: 'HTTP Request node, defaults', y: m.httpRequest },
		],
		true,
	);
	return { rows, results: { oneWayMs: ONE_WAY_MS, items: ITEMS, runs: RUNS, msPerItem: m, connections: c } };
}
