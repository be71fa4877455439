/**
 * `npm run bench`: the Workplace node against baselines measured in the same
 * run, in n8n-core's real engine, against the emulator on 127.0.0.1 in a child
 * process (so only the client side is measured). Prints a table of ratios and
 * writes docs/performance-parallelism.png, docs/performance-slow-link.png and
 * build/bench-results.json.
 *
 *   a. 1,000 × Knowledge Base → Get: node (defaults, one at a time) vs a raw
 *      keep-alive HTTP loop (and one that opens a connection per request) vs
 *      n8n's HTTP Request node, every one of them a node in the same engine.
 *   b. Knowledge File → Get Many, Return All over 10,000 files: requests made
 *      and time vs a raw paging loop.
 *   c. 100 MB download and 100 MB replace: throughput vs raw streams and peak
 *      RSS growth (n8n binary data in filesystem mode).
 *   d. 1,000 × Task → Create with 50 ms injected latency at 1, 2, 4, 8, 16 in parallel.
 *   e. 100 × Knowledge Base → Get over a slow, encrypted link (TLS, 10 ms each
 *      way, TCP connections counted): the same clients as a, and the node at
 *      each parallelism (bench/slow-link.ts).
 *
 * Medians of BENCH_RUNS (5) runs for a–c, BENCH_D_RUNS (3) for d and
 * BENCH_SLOW_RUNS (3) for e; variants
 * take turns within each run so drift hits them alike. Sizes: BENCH_ITEMS,
 * BENCH_FILES, BENCH_TASKS, BENCH_LATENCY_MS, BENCH_FILE_BYTES. Parts: the
 * first argument, e.g. `c` or `a,b` (`files` = c). Figures, not tests: nothing
 * here asserts timing. Run with --expose-gc for steadier memory baselines.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import * as http from 'node:http';
import path from 'node:path';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { makeTempFolder, removeTempFolder } from '../emulator/common/tempFolders';
import type { RunWorkflowResult, WorkflowJson } from '../testbed/engine';
import { emulatorCredential } from '../testbed/testbed';
import { writeLineChart } from './chart';
import { byId } from '../testbed/locator';
import { askChild, check, DEFAULTS_LABEL, emulatorAdmin, helper, httpRequestKbGet, inParallel, int, kbGetLoop, measure, median, ms, outputOf, peakRss, RAW_JOBS, raw, run, runBench, saveResults, send, setUpEngine, startEmulatorChild, tearDownEngine, workplace, x, type Row } from './common';
import { ROOT } from '../testbed/root';
import type { ChildReady } from './emulator-child';
import { rawDownload, rawReplace, REPLACE_TARGET, transferWorkflows } from './fileTransfer';
import { slowLink } from './slow-link';

const MB = 1024 * 1024;
const RUNS = int('BENCH_RUNS', 5);
const D_RUNS = int('BENCH_D_RUNS', 3);
const ITEMS = int('BENCH_ITEMS', 1000);
const FILES = int('BENCH_FILES', 10_000);
const TASKS = int('BENCH_TASKS', 1000);
const LATENCY_MS = int('BENCH_LATENCY_MS', 50);
const PARALLELISM = [1, 2, 4, 8, 16];
const FILES_KB = 2;

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });
const perRequest = new http.Agent({ keepAlive: false });

// ---------------------------------------------------------------------------
// The emulator child and its admin routes

let child: ChildProcess;
let ready: ChildReady;

const ask = <T>(message: object, kind: string) => askChild<T>(child, message, kind);

const admin = <T = unknown>(method: string, route: string, body?: unknown) => emulatorAdmin<T>(ready, method, route, body);

async function requestsTo(method: string, route: string): Promise<Array<{ path: string; connection: number }>> {
	const { entries } = await admin<{ entries: Array<{ path: string; connection: number }> }>(
		'GET',
		`/log?method=${method}&path=${encodeURIComponent(route)}`,
	);
	return entries;
}

/** Runs `work` and returns the highest RSS seen above the RSS just before it. */
async function peakGrowth(work: () => Promise<void>): Promise<number> {
	const { before, peak } = await peakRss(work);
	return peak - before;
}

const rows: Row[] = [];
const results: IDataObject = {};

// ---------------------------------------------------------------------------
// a. Knowledge Base → Get

async function partA(): Promise<void> {
	const items = Array.from({ length: ITEMS }, () => ({ json: { id: 1 } }));
	RAW_JOBS.set('kbGet', kbGetLoop(keepAlive, ready));
	RAW_JOBS.set('kbGetClose', kbGetLoop(perRequest, ready));
	const node = (parameters: INodeParameters) => workplace({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}'), ...parameters }, items);
	const timed = (workflow: WorkflowJson) => async () => {
		const { ms: took, result } = await run(workflow);
		const out = outputOf(result);
		if (out.length !== ITEMS || out.some((o) => o.json.id !== 1)) throw new Error('a: wrong output');
		return took / ITEMS;
	};
	const variants = {
		raw: timed(raw('kbGet', items)),
		rawClose: timed(raw('kbGetClose', items)),
		httpRequest: timed(httpRequestKbGet(ready, 'inline', items)),
		httpRequestCredential: timed(httpRequestKbGet(ready, 'credential', items)),
		nodeDefaults: timed(node({})),
		node1: timed(node(inParallel(1))),
	};
	// Warm-up: JIT, module loading, the HTTP Request node's first load.
	for (const variant of Object.values(variants)) await variant();
	const m = await measure(variants, RUNS);
	results.a = m;

	// Connections and credential reads of one node run (defaults), from the emulator's log.
	await admin('DELETE', '/log');
	helper.events.length = 0;
	await run(node({}));
	const sent = await requestsTo('GET', '/api/v1/knowledge/1');
	results.aConnections = { requests: sent.length, connections: new Set(sent.map((e) => e.connection)).size, credentialReads: helper.reads('workplaceKnowledgeBaseApi') };

	const label = `a. ${ITEMS} × Knowledge Base → Get`;
	rows.push({ part: label, what: 'raw keep-alive loop (node:http, in the engine)', value: ms(m.raw), ratio: '1.00× (baseline)' });
	rows.push({ part: '', what: 'raw loop, new connection per request', value: ms(m.rawClose), ratio: x(m.rawClose / m.raw) });
	rows.push({ part: '', what: 'HTTP Request node 4.2, defaults, header inline', value: ms(m.httpRequest), ratio: x(m.httpRequest / m.raw) });
	rows.push({ part: '', what: 'HTTP Request node 4.2, defaults, Workplace credential', value: ms(m.httpRequestCredential), ratio: x(m.httpRequestCredential / m.raw) });
	rows.push({ part: '', what: `Workplace node, defaults (${DEFAULTS_LABEL})`, value: ms(m.nodeDefaults), ratio: x(m.nodeDefaults / m.raw), goal: check(m.nodeDefaults / m.raw <= 3, 'node/raw ≤ 3') });
	rows.push({ part: '', what: 'Workplace node, one at a time', value: ms(m.node1), ratio: x(m.node1 / m.raw) });
	rows.push({ part: '', what: 'node defaults / HTTP Request node (header inline)', value: '', ratio: x(m.nodeDefaults / m.httpRequest), goal: check(m.nodeDefaults / m.httpRequest <= 1, '≤ 1.0') });
	const c = results.aConnections as IDataObject;
	rows.push({ part: '', what: 'one node run (defaults): requests / TCP connections / credential reads', value: `${c.requests} / ${c.connections} / ${c.credentialReads}` });
}

// ---------------------------------------------------------------------------
// b. Get Many, Return All

async function partB(): Promise<void> {
	const { total } = await ask<{ total: number }>({ kind: 'addFiles', knowledgeId: FILES_KB, count: FILES }, 'addFiles');
	const pageSize = 100; // the emulator's maxPageSize, the largest the service is known to accept
	const headers = { 'x-api-key': ready.credentials.apiKey, accept: 'application/json' };
	RAW_JOBS.set('listAll', async () => {
		const out: INodeExecutionData[] = [];
		for (let page = 1; ; page++) {
			const body = (await send(keepAlive, 'GET', `${ready.url}/api/v1/knowledge/${FILES_KB}/files?pagination%5Bpage%5D=${page}&pagination%5BpageSize%5D=${pageSize}`, headers)) as IDataObject;
			const data = body.data as IDataObject[];
			for (const json of data) out.push({ json });
			if (data.length < pageSize || page * pageSize >= total) break;
		}
		return out;
	});
	const one = [{ json: {} }];
	const node = workplace({ resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(FILES_KB), returnAll: true }, one);
	const timed = (workflow: WorkflowJson) => async () => {
		const { ms: took, result } = await run(workflow);
		if (outputOf(result).length !== total) throw new Error(`b: ${outputOf(result).length} of ${total} files`);
		return took;
	};
	const variants = { raw: timed(raw('listAll', one)), node: timed(node) };
	for (const variant of Object.values(variants)) await variant();
	const m = await measure(variants, RUNS);
	await admin('DELETE', '/log');
	await run(node);
	const requests = (await requestsTo('GET', `/api/v1/knowledge/${FILES_KB}/files`)).length;
	const expected = Math.ceil(total / pageSize);
	results.b = { ...m, total, requests, expected, pageSize };
	const label = `b. Get Many, Return All, ${total} files`;
	rows.push({ part: label, what: `requests made (page size ${pageSize})`, value: `${requests}`, goal: check(requests === expected, `= ceil(${total}/${pageSize}) = ${expected}`) });
	rows.push({ part: '', what: 'raw keep-alive paging loop', value: `${m.raw.toFixed(0)} ms`, ratio: '1.00× (baseline)' });
	rows.push({ part: '', what: 'Workplace node', value: `${m.node.toFixed(0)} ms`, ratio: x(m.node / m.raw) });
}

// ---------------------------------------------------------------------------
// c. 100 MB download and replace

async function partC(): Promise<void> {
	const dir = makeTempFolder('workplace-bench-');
	// The folder goes whether the transfers end well or not.
	const { figures, firstNodeDownload } = await transfers(path.join(dir, 'download.bin')).finally(() => removeTempFolder(dir));
	const mbps = (msValue: number) => ready.size / MB / (msValue / 1000);
	const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, { ms: median(v.ms), rssMB: median(v.rss) / MB, rssMaxMB: Math.max(...v.rss) / MB }]));
	results.c = { ...m, firstNodeDownloadMB: firstNodeDownload / MB, sizeMB: ready.size / MB };
	const size = (ready.size / MB).toFixed(0);
	const label = `c. ${size} MB file (sha256 checked)`;
	const rssText = (k: string) => `${m[k].rssMB.toFixed(1)} MB (max ${m[k].rssMaxMB.toFixed(1)})`;
	rows.push({ part: label, what: 'download, raw http.get → file', value: `${mbps(m.rawDownload.ms).toFixed(0)} MB/s`, ratio: '1.00× (baseline)' });
	rows.push({ part: '', what: 'download, Workplace node → n8n binary store', value: `${mbps(m.nodeDownload.ms).toFixed(0)} MB/s`, ratio: `${x(mbps(m.nodeDownload.ms) / mbps(m.rawDownload.ms))} throughput` });
	rows.push({ part: '', what: 'replace, raw streamed multipart PUT', value: `${mbps(m.rawReplace.ms).toFixed(0)} MB/s`, ratio: '1.00× (baseline)' });
	rows.push({ part: '', what: 'replace, Workplace node from the binary store', value: `${mbps(m.nodeReplace.ms).toFixed(0)} MB/s`, ratio: `${x(mbps(m.nodeReplace.ms) / mbps(m.rawReplace.ms))} throughput` });
	rows.push({ part: '', what: 'peak RSS growth, raw download / raw replace', value: `${rssText('rawDownload')} / ${rssText('rawReplace')}` });
	rows.push({ part: '', what: 'peak RSS growth, node download', value: rssText('nodeDownload'), goal: check(m.nodeDownload.rssMaxMB < 64, '< 64 MB') });
	rows.push({ part: '', what: 'peak RSS growth, node download → replace', value: rssText('nodeReplace'), goal: check(m.nodeReplace.rssMaxMB < 64, '< 64 MB') });
	rows.push({ part: '', what: 'peak RSS growth, node download, first of the process', value: `${(firstNodeDownload / MB).toFixed(1)} MB (once, cold)` });
}

/** Part c's transfers through `file`, raw and by the node, RUNS times: their times and peak RSS growth, and the process's first node download. */
async function transfers(file: string): Promise<{ figures: Record<string, { ms: number[]; rss: number[] }>; firstNodeDownload: number }> {
	const source = { knowledgeId: ready.knowledgeId, fileId: ready.fileId };
	const verify = async (label: string) => {
		const stored = await ask<{ sha256: string }>({ kind: 'file', fileId: REPLACE_TARGET.fileId }, 'file');
		if (stored.sha256 !== ready.sha256) throw new Error(`c: ${label}: the replaced file's sha256 does not match the original`);
	};
	const rawDownloadToFile = () => rawDownload(ready, keepAlive, source, file, ready.sha256);
	const rawReplaceFromFile = () => rawReplace(ready, keepAlive, file, ready.size);
	const { downloadOnly, roundTrip } = transferWorkflows(source);
	const executionTime = (result: RunWorkflowResult, name: string) => result.run.data.resultData.runData[name][0].executionTime;

	const figures: Record<string, { ms: number[]; rss: number[] }> = {};
	const record = (name: string, took: number, rss: number) => {
		figures[name] ??= { ms: [], rss: [] };
		figures[name].ms.push(took);
		figures[name].rss.push(rss);
	};
	// The process's first large transfer, before any warm-up: what a fresh n8n
	// worker sees once (allocator and V8 heaps grow to their working size).
	let firstSha: unknown;
	const firstNodeDownload = await peakGrowth(async () => {
		const { result } = await run(downloadOnly);
		firstSha = result.json('Download')[0].sha256;
	});
	if (firstSha !== ready.sha256) throw new Error('c: first node download sha256 mismatch');
	// Warm-up with the real size, so both paths have loaded what they need.
	await rawDownloadToFile();
	await run(roundTrip);
	for (let r = 0; r < RUNS; r++) {
		let took = 0;
		let rss = await peakGrowth(async () => {
			const started = performance.now();
			await rawDownloadToFile();
			took = performance.now() - started;
		});
		record('rawDownload', took, rss);
		rss = await peakGrowth(async () => {
			const started = performance.now();
			await rawReplaceFromFile();
			took = performance.now() - started;
		});
		record('rawReplace', took, rss);
		await verify('raw');
		let sha: unknown;
		rss = await peakGrowth(async () => {
			const { result } = await run(downloadOnly);
			took = executionTime(result, 'Download');
			sha = result.json('Download')[0].sha256;
		});
		if (sha !== ready.sha256) throw new Error('c: node download sha256 mismatch');
		record('nodeDownload', took, rss);
		let replaceTook = 0;
		rss = await peakGrowth(async () => {
			const { result } = await run(roundTrip);
			replaceTook = executionTime(result, 'Replace');
		});
		record('nodeReplace', replaceTook, rss);
		await verify('node');
	}
	return { figures, firstNodeDownload };
}

// ---------------------------------------------------------------------------
// d. Task creations with injected latency, by parallelism

async function partD(): Promise<void> {
	await admin('DELETE', '/faults');
	await admin('POST', '/faults', { method: 'POST', path: '/api/v1/task-projects/tasks', times: 'Infinity', action: { kind: 'delay', ms: LATENCY_MS } });
	const items = Array.from({ length: TASKS }, (_, n) => ({ json: { title: `Bench task ${n}` } }));
	const variants = Object.fromEntries(
		PARALLELISM.map((parallel) => [
			String(parallel),
			async () => {
				const { ms: took, result } = await run(workplace({ resource: 'task', operation: 'create', taskTitle: '={{ $json.title }}', ...inParallel(parallel) }, items));
				const out = outputOf(result);
				if (out.length !== TASKS || out.some((o, n) => o.json.taskTitle !== `Bench task ${n}`)) throw new Error('d: output out of order or incomplete');
				return took / TASKS;
			},
		]),
	);
	const m = await measure(variants, D_RUNS);
	await admin('DELETE', '/faults');
	results.d = { latencyMs: LATENCY_MS, msPerItem: m };
	const label = `d. ${TASKS} × Task → Create, ${LATENCY_MS} ms latency`;
	for (const parallel of PARALLELISM) {
		const speedup = m['1'] / m[String(parallel)];
		rows.push({
			part: parallel === 1 ? label : '',
			what: parallel === 1 ? 'sequential (Requests in Parallel = 1)' : `Requests in Parallel = ${parallel}`,
			value: ms(m[String(parallel)]),
			ratio: `${x(speedup)} faster`,
			goal: parallel === 8 ? check(speedup >= 5, '≥ 5× at 8') : undefined,
		});
	}
	mkdirSync(path.join(ROOT, 'docs'), { recursive: true });
	writeLineChart(
		path.join(ROOT, 'docs/performance-parallelism.png'),
		`Task → Create: time per item vs Requests in Parallel (${LATENCY_MS} ms latency)`,
		'Requests in Parallel',
		'time per item (ms, median)',
		PARALLELISM.map((p) => ({ x: p, y: m[String(p)] })),
		`${TASKS} items per run, median of ${D_RUNS} runs, n8n-core engine, emulator on 127.0.0.1 (npm run bench)`,
	);
}

// ---------------------------------------------------------------------------
// Token requests of a parallel bot run

async function tokens(): Promise<void> {
	const setBotCredentialWithoutToken = () => helper.set(emulatorCredential(ready, 'bot'));
	setBotCredentialWithoutToken();
	helper.events.length = 0;
	const before = (await ask<{ count: number }>({ kind: 'tokenRequests' }, 'tokenRequests')).count;
	const items = Array.from({ length: 100 }, () => ({ json: { username: 'nattaya.p' } }));
	await run(workplace({ resource: 'user', operation: 'findByUsername', username: '={{ $json.username }}', ...inParallel(8) }, items));
	const after = (await ask<{ count: number }>({ kind: 'tokenRequests' }, 'tokenRequests')).count;
	results.tokens = { tokenRequests: after - before, credentialReads: helper.reads('workplaceBotApi') };
	rows.push({
		part: 'Bot: 100 × User → Find, 8 in parallel',
		what: 'token requests / credential reads (no token stored at start)',
		value: `${after - before} / ${helper.reads('workplaceBotApi')}`,
		goal: check(after - before === 1, '1 token request'),
	});
}

async function main(): Promise<void> {
	if (!(globalThis as { gc?: unknown }).gc) console.warn('(run with --expose-gc for steadier memory baselines)');
	const arg = process.argv[2] ?? 'a,b,c,d,e';
	const parts = new Set(arg.replace('files', 'c').split(','));
	({ child, ready } = await startEmulatorChild());
	try {
		console.log(`Emulator in child process ${child.pid} at ${ready.url}; Node ${process.version}; runs: ${RUNS} (a–c), ${D_RUNS} (d)`);
		// BENCH_PACKAGE_ROOT measures another build of the package (e.g. a checkout of an earlier commit), as bench:profile does.
		await setUpEngine(ready, 'filesystem', process.env.BENCH_PACKAGE_ROOT);
		if (parts.has('a')) await partA();
		if (parts.has('b')) await partB();
		if (parts.has('c')) await partC();
		if (parts.has('d')) await partD();
		if (parts.has('e')) {
			const e = await slowLink(ready);
			results.e = e.results;
			rows.push(...e.rows);
		}
		if (parts.has('a') || parts.has('tokens')) await tokens();
		saveResults('bench-results', rows, { runs: RUNS, dRuns: D_RUNS, results });
	} finally {
		keepAlive.destroy();
		tearDownEngine();
		child.send({ kind: 'close' });
	}
}

runBench(main);
