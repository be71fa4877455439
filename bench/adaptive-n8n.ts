/**
 * Node version 4's defaults in a real n8n 2.41.1 (e2e/'s install, the package
 * installed as n8n installs a community package), against baselines measured in
 * the same run. Run after `npm run build && npm run build:dev`:
 * `node build/bench/adaptive-n8n.js [link|queue]` (through scripts/with-node24.sh).
 *
 *   link   100 and 1,000 × Knowledge Base → Get over the slow, encrypted link of
 *          slow-link.ts (TLS, 20 ms round trip; n8n started with
 *          NODE_EXTRA_CA_CERTS), on `n8n start` (regular mode), each workflow
 *          run as the editor's "Execute workflow" does: ms per Get is the
 *          Get node's execution time in n8n's run data over its items. The
 *          node's defaults (version 4) in a first run (a credential of its own
 *          for every run) and in later runs; version 3 at 100 in parallel, its
 *          best fixed setting; n8n's HTTP Request node 4.2 with the key typed in
 *          as a header and with a Header Auth credential (all items at once,
 *          its default); a raw keep-alive client, one at a time, in this process.
 *   queue  4 executions at once on one queue-mode worker (the e2e suites'
 *          bed: Redis, PostgreSQL 17, n8n main and one worker) sharing one
 *          throttled service (the emulator's throttle: 429
 *          with Retry-After above 4 requests in flight, 20 ms per request):
 *          each a webhook call whose execution gets 250 Knowledge Base IDs and
 *          reads them (Continue On Fail on). Bursts of 4 calls; per variant the
 *          first burst and the median of the later ones: time from the first
 *          execution's start to the last one's end (n8n's database), requests
 *          refused, items failed.
 *
 * Medians of BENCH_N8N_RUNS (3) runs, variants taking turns after one warm-up
 * run each; BENCH_N8N_BURSTS (4) bursts per queue variant (one, when the first
 * took longer than BENCH_ONCE_AFTER_MS, 60 s). Writes
 * build/bench-adaptive-n8n.json and the chart, performance-adaptive-n8n.png:
 * into docs/ when both parts ran, else into build/. Everything it starts is
 * stopped and its folders removed. Not part of CI: a few minutes, and a real n8n.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as https from 'node:https';
import path from 'node:path';

import { credentialData, type EmulatorAccess } from '../emulator/clientCredentials';
import { makeTempFolder, removeTempFolder } from '../emulator/common/tempFolders';
import { startEmulator, type Emulator } from '../emulator/server';
import { E2eTestbed } from '../e2e/lib/testbed';
import { webhookStart, workplaceNode } from '../e2e/lib/workflows';
import { chainWorkflow, MANUAL_START, type ChainNode } from '../testbed/chainWorkflow';
import { N8n, N8nRest, hasEnded, installCommunityPackage, type ExecuteResult, type StoredCredential } from '../testbed/n8n';
import { until } from '../testbed/until';
import { waitForTriggerWebhook } from '../testbed/n8nWebhooks';
import { costNote, type BarPanel } from './chart';
import { askChild, int, kbGetLoop, median, onInterrupted, runBench, saveResults, x, type Row } from './common';
import type { ProxyConfig, ProxyReady } from './delay-proxy-child';
import { makeCertificate } from './slow-link';

const RUNS = int('BENCH_N8N_RUNS', 3);
const BURSTS = int('BENCH_N8N_BURSTS', 4);
const ONE_WAY_MS = int('BENCH_ONE_WAY_MS', 10);
const QUEUE_ITEMS = int('BENCH_QUEUE_ITEMS', 250);
const QUEUE_EXECUTIONS = 4;
/** A queue variant whose first burst took longer is not run again (a fixed setting above the service's limit: Retry-After pauses every second). */
const ONCE_AFTER_MS = int('BENCH_ONCE_AFTER_MS', 60_000);
const KB = 'workplaceKnowledgeBaseApi';

const rows: Row[] = [];
const results: Record<string, unknown> = {};
const panels: BarPanel[] = [];

/** n items `{ id: 1 }`, made by a Code node (JavaScript) so the measured node's input is the same in every run. */
function itemsNode(n: number): ChainNode {
	return { name: 'Items', type: 'n8n-nodes-base.code', typeVersion: 2, parameters: { jsCode: `return Array.from({ length: ${n} }, () => ({ json: { id: 1 } }));` } };
}

/** The Workplace node reading every item's knowledge base with the credential `credentialId` (Continue On Fail on). */
function workplaceGet(typeVersion: number, credentialId: string, parallel?: number): ChainNode {
	const parameters = {
		resource: 'knowledgeBase',
		operation: 'get',
		knowledgeId: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
		...(parallel ? { options: { batching: { batch: { requestsInParallel: parallel } } } } : {}),
	};
	return { ...workplaceNode('Get', { [KB]: { id: credentialId, name: credentialId } }, parameters, typeVersion), onError: 'continueRegularOutput' };
}

/** n8n's HTTP Request node 4.2 reading every item's knowledge base, options at their defaults. */
function httpRequestGet(base: string, apiKey: string, auth: 'inline' | 'headerAuth'): ChainNode {
	const authentication =
		auth === 'inline'
			? { authentication: 'none', sendHeaders: true, specifyHeaders: 'keypair', headerParameters: { parameters: [{ name: 'x-api-key', value: apiKey }] } }
			: { authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth' };
	return {
		name: 'Get',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: { method: 'GET', url: `=${base}/api/v1/knowledge/{{ $json.id }}`, ...authentication, options: {} },
		...(auth === 'headerAuth' ? { credentials: { httpHeaderAuth: { id: 'bench-header-auth', name: 'bench-header-auth' } } } : {}),
	};
}

/** A workflow: `start` → Items → Get. */
const chain = (id: string, start: ChainNode, items: number, get: ChainNode) => chainWorkflow(id, id, [start, itemsNode(items), get]);

function kbCredential(access: EmulatorAccess, id: string): StoredCredential {
	return { id, name: id, type: KB, data: credentialData(access)[KB] };
}

/** The Get node's items and execution time in an execution's run data. */
function getNodeRun(result: ExecuteResult): { ms: number; items: Array<Record<string, unknown>> } {
	const run = result.data.resultData.runData.Get?.[0] as { executionTime?: number; data?: { main: Array<Array<{ json: Record<string, unknown> }> | null> } } | undefined;
	if (!run || run.executionTime === undefined) throw new Error(`the Get node did not run: ${JSON.stringify(result.data.resultData.error ?? {}).slice(0, 500)}`);
	return { ms: run.executionTime, items: (run.data?.main[0] ?? []).map((item) => item.json) };
}

// ---------------------------------------------------------------------------
// link: a slow, encrypted link, regular mode

async function link(emulator: Emulator): Promise<void> {
	const dir = makeTempFolder('workplace-bench-n8n-tls-');
	let proxy: ChildProcess | undefined;
	const n8n = new N8n({ env: {} });
	// The proxy ends with this process (endsWithBench); n8n and its task runner would not.
	const cancelCleanup = onInterrupted(() => n8n.stopNow());
	try {
		const { certFile, keyFile } = makeCertificate(dir);
		proxy = fork(path.join(__dirname, 'delay-proxy-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
		const config: ProxyConfig = { kind: 'start', certFile, keyFile, target: emulator.url, oneWayMs: ONE_WAY_MS };
		const { url } = await askChild<ProxyReady>(proxy, config, 'ready');
		const access: EmulatorAccess = { url, credentials: emulator.credentials };
		Object.assign(n8n.env, { NODE_EXTRA_CA_CERTS: certFile });

		const sizes = (process.env.BENCH_N8N_SIZES ?? '100,1000').split(',').map(Number);
		const variants = ['later', 'fixed100', 'httpInline', 'httpHeaderAuth'] as const;
		const firstRunIds = (items: number) => Array.from({ length: RUNS + 1 }, (_, k) => `adaptFirst${items}x${k}`);
		const workflows = sizes.flatMap((items) => [
			chain(`adaptLater${items}`, MANUAL_START, items, workplaceGet(4, 'bench-kb-later')),
			chain(`adaptFixed100x${items}`, MANUAL_START, items, workplaceGet(3, 'bench-kb-fixed', 100)),
			chain(`adaptHttpInline${items}`, MANUAL_START, items, httpRequestGet(url, emulator.credentials.apiKey, 'inline')),
			chain(`adaptHttpHeader${items}`, MANUAL_START, items, httpRequestGet(url, emulator.credentials.apiKey, 'headerAuth')),
			...firstRunIds(items).map((id) => chain(id, MANUAL_START, items, workplaceGet(4, `bench-kb-${id}`))),
		]);
		await installCommunityPackage(n8n.userFolder);
		await n8n.importCredentials([
			kbCredential(access, 'bench-kb-later'),
			kbCredential(access, 'bench-kb-fixed'),
			...sizes.flatMap((items) => firstRunIds(items).map((id) => kbCredential(access, `bench-kb-${id}`))),
			{ id: 'bench-header-auth', name: 'bench-header-auth', type: 'httpHeaderAuth', data: { name: 'x-api-key', value: emulator.credentials.apiKey } },
		]);
		await n8n.importWorkflows(workflows);
		await n8n.start();
		const rest = new N8nRest(n8n.url);
		await rest.setupOwner();
		await rest.login();

		const ca = readFileSync(certFile);
		for (const items of sizes) {
			const idOf: Record<(typeof variants)[number], string> = {
				later: `adaptLater${items}`,
				fixed100: `adaptFixed100x${items}`,
				httpInline: `adaptHttpInline${items}`,
				httpHeaderAuth: `adaptHttpHeader${items}`,
			};
			const timed = async (workflowId: string): Promise<number> => {
				const { ms, items: out } = getNodeRun(await rest.runManually(workflowId, 'Start'));
				if (out.length !== items || out.some((o) => o.id !== 1)) throw new Error(`${workflowId}: ${out.length} items, ${JSON.stringify(out.find((o) => o.id !== 1))?.slice(0, 300)}`);
				return ms / items;
			};
			const rawKeepAlive = async (): Promise<number> => {
				const agent = new https.Agent({ keepAlive: true, ca });
				try {
					const started = performance.now();
					await kbGetLoop(agent, access)(Array.from({ length: items }, () => ({ json: { id: 1 } })));
					return (performance.now() - started) / items;
				} finally {
					agent.destroy();
				}
			};
			const firstRuns = firstRunIds(items);
			const figures: Record<string, number[]> = { first: [], raw: [], ...Object.fromEntries(variants.map((v) => [v, []])) };
			// Warm-up: n8n's first load of each node, and what later runs start from.
			for (const variant of variants) await timed(idOf[variant]);
			await timed(firstRuns[0]);
			for (let r = 0; r < RUNS; r++) {
				for (const variant of variants) figures[variant].push(await timed(idOf[variant]));
				figures.first.push(await timed(firstRuns[r + 1]));
				figures.raw.push(await rawKeepAlive());
				console.log(`link ${items} run ${r + 1}: ${Object.entries(figures).map(([k, v]) => `${k} ${v[r].toFixed(2)}`).join(', ')} ms/Get`);
			}
			const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)]));
			results[`link${items}`] = { oneWayMs: ONE_WAY_MS, runs: figures, medians: m };
			const label = `real n8n 2.41.1, TLS ${2 * ONE_WAY_MS} ms, ${items} Gets`;
			const ms = (v: number) => `${v.toFixed(2)} ms/Get`;
			rows.push({ part: label, what: 'this node, version 4 defaults, later runs', value: ms(m.later), ratio: `${x(m.later / m.fixed100)} of best fixed` });
			rows.push({ part: '', what: 'this node, version 4 defaults, first run', value: ms(m.first), ratio: `${x(m.first / m.fixed100)} of best fixed` });
			rows.push({ part: '', what: 'this node, version 3, Requests in Parallel 100 (best fixed)', value: ms(m.fixed100), ratio: '1.00× (baseline)' });
			rows.push({ part: '', what: "n8n's HTTP Request node, header inline, all at once", value: ms(m.httpInline), ratio: x(m.httpInline / m.fixed100) });
			rows.push({ part: '', what: "n8n's HTTP Request node, Header Auth credential", value: ms(m.httpHeaderAuth), ratio: x(m.httpHeaderAuth / m.fixed100) });
			rows.push({ part: '', what: 'raw keep-alive client, one at a time', value: ms(m.raw), ratio: x(m.raw / m.fixed100) });
			rows.push({ part: '', what: 'defaults (later runs) / HTTP Request node, header inline', value: '', ratio: x(m.later / m.httpInline), goal: `≤ 1.0 ${m.later / m.httpInline <= 1 ? '✓' : '✗'}` });
			rows.push({ part: '', what: 'defaults (first run) / HTTP Request node, header inline', value: '', ratio: x(m.first / m.httpInline), goal: `≤ 1.0 ${m.first / m.httpInline <= 1 ? '✓' : '✗'}` });
			panels.push({
				title: `Real n8n, TLS ${2 * ONE_WAY_MS} ms, ${items} Gets`,
				axis: 'v4 defaults, version 3 at 100, HTTP Request node (inline, credential), raw keep-alive',
				bars: [
					{ label: 'v4 first', value: m.first / m.fixed100, highlight: true },
					{ label: 'v4 later', value: m.later / m.fixed100, highlight: true },
					{ label: '100', value: 1 },
					{ label: 'HTTP inline', value: m.httpInline / m.fixed100 },
					{ label: 'HTTP cred.', value: m.httpHeaderAuth / m.fixed100 },
					{ label: 'raw k-a', value: m.raw / m.fixed100 },
				],
			});
		}
	} finally {
		await n8n.close();
		cancelCleanup();
		if (proxy?.connected) proxy.send({ kind: 'close' });
		removeTempFolder(dir);
	}
}

// ---------------------------------------------------------------------------
// queue: 4 executions at once on one worker, one throttled service

interface Burst {
	ms: number;
	refused: number;
	failed: number;
}

async function queue(): Promise<void> {
	const variants: Array<{ key: string; what: string; get: (credentialId: string) => ChainNode }> = [
		{ key: 'v4', what: 'version 4 defaults (one limiter for the worker)', get: (c) => workplaceGet(4, c) },
		{ key: 'fixed1', what: 'version 3, 1 at a time per execution', get: (c) => workplaceGet(3, c, 1) },
		{ key: 'fixed4', what: 'version 3, 4 at a time per execution', get: (c) => workplaceGet(3, c, 4) },
		{ key: 'v3', what: 'version 3 defaults (reads 32 at a time)', get: (c) => workplaceGet(3, c) },
	];
	const workflowId = (key: string) => `adaptQueue${key}`;
	// The e2e suites' bed: the emulator, PostgreSQL 17, Redis, n8n main and one worker running 10 jobs at once.
	const bed = new E2eTestbed({
		queue: { workers: 1, concurrency: 10 },
		credentials: variants.map((v) => (emulator: Emulator) => kbCredential(emulator, `bench-queue-${v.key}`)),
		workflows: variants.map((v) => chain(workflowId(v.key), webhookStart(`adapt-${v.key}`), QUEUE_ITEMS, v.get(`bench-queue-${v.key}`))),
		publish: true,
	});
	const cancelCleanup = onInterrupted(() => bed.stopNow());
	try {
		await bed.start();
		const { emulator } = bed;
		const postgres = bed.postgres!;
		const rest = bed.rest;
		for (const v of variants) await waitForTriggerWebhook(`${bed.url}/webhook/adapt-${v.key}`);

		const executions = async (key: string) =>
			(
				await postgres.query(
					`SELECT id, status, (extract(epoch from "startedAt") * 1000)::bigint AS started, (extract(epoch from "stoppedAt") * 1000)::bigint AS stopped FROM execution_entity WHERE "workflowId" = '${workflowId(key)}'`,
				)
			).map((row) => ({ id: String(row.id), status: String(row.status), started: Number(row.started), stopped: Number(row.stopped) }));
		const burst = async (key: string): Promise<Burst> => {
			emulator.throttle.set({ maxInFlight: 4, latencyMs: 20 });
			const before = new Set((await executions(key)).map((e) => e.id));
			const calls = await Promise.all(
				Array.from({ length: QUEUE_EXECUTIONS }, () => fetch(`${bed.url}/webhook/adapt-${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })),
			);
			if (calls.some((c) => !c.ok)) throw new Error(`queue ${key}: webhook answered ${calls.map((c) => c.status).join(', ')}`);
			const done = await until(
				`${QUEUE_EXECUTIONS} executions of ${key}`,
				async () => {
					const list = (await executions(key)).filter((e) => !before.has(e.id));
					return list.length === QUEUE_EXECUTIONS && list.every((e) => hasEnded(e.status) && e.stopped > 0) ? list : undefined;
				},
				900_000,
				{ everyMs: 250 },
			);
			let failed = 0;
			for (const execution of done) {
				const { items } = getNodeRun(await rest.execution(execution.id));
				if (items.length !== QUEUE_ITEMS) throw new Error(`queue ${key}: execution ${execution.id} has ${items.length} items`);
				failed += items.filter((item) => item.error !== undefined).length;
			}
			const ms = Math.max(...done.map((e) => e.stopped)) - Math.min(...done.map((e) => e.started));
			return { ms, refused: emulator.throttle.counts().refused, failed };
		};
		const figures: Record<string, Burst[]> = Object.fromEntries(variants.map((v) => [v.key, []]));
		for (let b = 0; b < BURSTS; b++) {
			for (const v of variants) {
				if (b > 0 && figures[v.key][0].ms > ONCE_AFTER_MS) continue;
				const result = await burst(v.key);
				figures[v.key].push(result);
				console.log(`queue ${v.key} burst ${b + 1}: ${(result.ms / 1000).toFixed(2)} s, ${result.refused} refused, ${result.failed} failed`);
			}
		}
		emulator.throttle.reset();
		results.queue = { executions: QUEUE_EXECUTIONS, itemsEach: QUEUE_ITEMS, throttle: { maxInFlight: 4, latencyMs: 20 }, bursts: figures };
		const total = QUEUE_EXECUTIONS * QUEUE_ITEMS;
		const later = (key: string) => {
			const rest_ = figures[key].length > 1 ? figures[key].slice(1) : figures[key];
			return { ms: median(rest_.map((f) => f.ms)), refused: median(rest_.map((f) => f.refused)), failed: median(rest_.map((f) => f.failed)) };
		};
		const fixed = variants.filter((v) => v.key !== 'v4' && later(v.key).failed === 0).map((v) => later(v.key).ms);
		const best = Math.min(...(fixed.length > 0 ? fixed : [later('fixed1').ms]));
		const label = `real n8n 2.41.1, queue mode, ${QUEUE_EXECUTIONS} executions at once on one worker, ${QUEUE_ITEMS} Gets each, service taking 4 at once`;
		const value = (f: Burst) => `${(f.ms / 1000).toFixed(2)} s, ${f.refused} refused (${((100 * f.refused) / (total + f.refused)).toFixed(1)} %), ${f.failed} failed`;
		for (const v of variants) {
			rows.push({ part: v === variants[0] ? label : '', what: `${v.what}, first burst`, value: value(figures[v.key][0]), ratio: x(figures[v.key][0].ms / best) });
			rows.push({ part: '', what: `${v.what}, later bursts`, value: value(later(v.key)), ratio: x(later(v.key).ms / best) });
		}
		panels.push({
			title: `Queue mode: ${QUEUE_EXECUTIONS} executions on one worker, service takes 4`,
			axis: 'first burst and later bursts: v4 defaults, version 3 at 1, at 4, at its default (32)',
			bars: variants.flatMap((v) => [
				{ label: `${v.key} 1st`, value: figures[v.key][0].ms / best, highlight: v.key === 'v4', note: costNote(figures[v.key][0]) },
				{ label: `${v.key} later`, value: later(v.key).ms / best, highlight: v.key === 'v4', note: costNote(later(v.key)) },
			]),
		});
	} finally {
		await bed.close();
		cancelCleanup();
	}
}

async function main(): Promise<void> {
	const parts = new Set((process.argv[2] ?? 'link,queue').split(','));
	// The emulator's server ends with this process; its folder goes with the temp folders (runBench).
	const emulator = await startEmulator();
	try {
		console.log(`n8n 2.41.1; Node ${process.version}; runs: ${RUNS}, bursts: ${BURSTS}`);
		if (parts.has('link')) await link(emulator);
		if (parts.has('queue')) await queue();
		saveResults('bench-adaptive-n8n', rows, { n8n: '2.41.1', runs: RUNS, bursts: BURSTS, results }, {
			file: 'performance-adaptive-n8n.png',
			title: 'Node version 4 in a real n8n 2.41.1: time / the best fixed setting without failed items',
			panels,
			note: `medians of ${RUNS} runs (link) and of ${BURSTS - 1} later bursts (queue); build/bench/adaptive-n8n.js`,
			everyPart: parts.has('link') && parts.has('queue'),
		});
	} finally {
		await emulator.close();
	}
}

runBench(main);
