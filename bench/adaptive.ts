/**
 * `npm run bench:adaptive`: node version 4's adaptive concurrency (its defaults)
 * against every fixed Requests in Parallel of version 3, n8n's HTTP Request
 * node and raw clients, in n8n-core's real engine against the emulator (a child
 * process). Each scenario's ratios are to a baseline measured in the same run:
 *
 *   healthy   100 and 1,000 × Knowledge Base → Get over a slow, encrypted link
 *             (TLS, 20 ms round trip, slow-link.ts): against the node's best
 *             fixed setting and the HTTP Request node (all items at once);
 *             1,000 against the largest fixed settings only
 *             (BENCH_FIXED_LINK_1000) and without the slowest clients;
 *   throttled BENCH_THROTTLED_ITEMS (1,000) Gets against the emulator's
 *             throttle: 429 with Retry-After above 4, 16 or 64 requests in
 *             flight, or above 50 per second, every request taking 20 ms:
 *             time, requests refused and items failed (Continue On Fail on),
 *             against the best fixed setting;
 *   load      as many Gets against a service whose latency grows beyond 12 in
 *             flight (in proportion, and with the square).
 *
 * The node's defaults are measured three times: a first run (a credential of
 * its own for every run: what the node learns of a service is kept per
 * credential, in the process), a later run (the run right after one with the
 * same credential: what a refusal taught holds for a minute of use) and a run
 * an hour after the last one with the same credential, as an hourly schedule
 * meets the service (the hour skipped with testbed/clock.ts, not waited).
 * The throttle is set afresh before every run, so each starts from an empty
 * second. Medians of BENCH_ADAPTIVE_RUNS (3; three times as many over the
 * healthy link), variants taking turns; a fixed
 * setting whose first run took longer than BENCH_ONCE_AFTER_MS (30 s, e.g. 8
 * at a time against a service taking 4: a Retry-After every second) is run
 * once. Parts: the first argument (`npm run bench:adaptive -- c16,r50`), e.g.
 * `throttled`, `healthy,load` or a scenario's key (`c4`, `c16`, `c64`, `r50`, `load`,
 * `loadSquare`); `both` (`c4r120`, `c16r300`: a limit on requests at once and one per
 * second together) only when named. Writes build/bench-adaptive.json and the chart,
 * performance-adaptive.png: into docs/ when every other part ran, else into build/.
 * Figures, not tests.
 */
import type { ChildProcess } from 'node:child_process';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { ThrottleCounts, ThrottleSettings } from '../emulator/common/throttle';
import { skipAhead } from '../testbed/clock';
import { byId } from '../testbed/locator';
import { costNote, type Bar, type BarPanel } from './chart';
import { emulatorAdmin, failedItems, inParallel, int, median, outputOf, run, runBench, saveResults, setUpEngine, startEmulatorChild, tearDownEngine, workplaceWith, x, type Row } from './common';
import type { ChildReady } from './emulator-child';
import { overSlowLink } from './slow-link';
import type { LinkVariant } from './slow-link-child';

const RUNS = int('BENCH_ADAPTIVE_RUNS', 3);
/** A run over the healthy link takes 7 s at most (100 Gets one at a time), and one variant's runs spread 1.3–1.8× (2026-12-01): three times as many runs there. */
const LINK_RUNS = 3 * RUNS;
const ONCE_AFTER_MS = int('BENCH_ONCE_AFTER_MS', 30_000);
const THROTTLED_ITEMS = int('BENCH_THROTTLED_ITEMS', 1000);
const FIXED = (process.env.BENCH_FIXED ?? '1,2,4,8,16,32,64,100').split(',').map(Number);
/**
 * Over the link, 1,000 Gets at 1–16 at a time (or by a client waiting for each
 * answer) take half a minute and more per run; the largest settings are the
 * ones that compete, the HTTP Request node with its header inline the one n8n
 * client the goal names.
 */
const FIXED_LINK_1000 = (process.env.BENCH_FIXED_LINK_1000 ?? '32,64,100').split(',').map(Number);

let child: ChildProcess;
let ready: ChildReady;

const admin = <T = unknown>(method: string, route: string, body?: unknown) => emulatorAdmin<T>(ready, method, route, body);

const HOUR = 3_600_000;
/** The node's version 4 defaults as measured: their variant's name, what a row calls them and their bar's label (short enough for a tenth of a panel's width). */
const DEFAULTS: Array<[string, string, string]> = [
	['firstRun', 'first run', 'first'],
	['laterRuns', 'later runs', 'later'],
	['hourLater', 'an hour after the last run', '1 h on'],
];

/** The defaults' bars of a panel (pink). */
function defaultsBars(bar: (name: string) => Omit<Bar, 'label'>): Bar[] {
	return DEFAULTS.map(([name, , label]) => ({ label, highlight: true, ...bar(name) }));
}

const rows: Row[] = [];
const results: IDataObject = {};
const panels: BarPanel[] = [];

// ---------------------------------------------------------------------------
// Healthy: a slow, encrypted link

async function healthy(): Promise<void> {
	await admin('DELETE', '/throttle');
	await overSlowLink(ready, async (measureOverLink, oneWayMs) => {
		for (const items of [100, 1000]) {
			const fixed = items === 100 ? FIXED : FIXED_LINK_1000;
			const few = items === 100;
			const variants: LinkVariant[] = [
				...(few ? [{ name: 'rawKeepAlive', kind: 'rawKeepAlive' } as const] : []),
				{ name: 'httpRequest', kind: 'httpRequest', auth: 'inline' },
				...(few ? [{ name: 'httpRequestCredential', kind: 'httpRequest', auth: 'credential' } as const] : []),
				{ name: 'firstRun', kind: 'workplace', typeVersion: 4, firstRun: true },
				{ name: 'laterRuns', kind: 'workplace', typeVersion: 4, runBefore: true },
				{ name: 'hourLater', kind: 'workplace', typeVersion: 4, unusedMs: HOUR },
				...fixed.map((p): LinkVariant => ({ name: `fixed${p}`, kind: 'workplace', typeVersion: 3, parallel: p })),
			];
			const { msPerItem: m } = await measureOverLink(items, LINK_RUNS, variants);
			const best = Math.min(...fixed.map((p) => m[`fixed${p}`]));
			const bestAt = fixed.find((p) => m[`fixed${p}`] === best)!;
			results[`healthy${items}`] = { oneWayMs, msPerItem: m, bestFixed: bestAt };
			const label = `healthy, TLS ${2 * oneWayMs} ms, ${items} Gets`;
			const ms = (v: number) => `${v.toFixed(2)} ms/Get`;
			rows.push({ part: label, what: `node's best fixed setting (${bestAt} at a time)`, value: ms(best), ratio: '1.00× (baseline)' });
			for (const [name, what] of [
				...DEFAULTS.map(([name, when]) => [name, `node version 4 defaults, ${when}`]),
				['httpRequest', 'HTTP Request node, header inline (all at once)'],
				['httpRequestCredential', 'HTTP Request node, Workplace credential'],
				['rawKeepAlive', 'raw keep-alive client, one at a time'],
			]) {
				if (m[name] !== undefined) rows.push({ part: '', what, value: ms(m[name]), ratio: x(m[name] / best) });
			}
			for (const [name, when] of DEFAULTS) {
				rows.push({ part: '', what: `${when} / HTTP Request node (header inline)`, value: '', ratio: x(m[name] / m.httpRequest), goal: m[name] / m.httpRequest <= 1 ? '≤ 1.0 ✓' : '≤ 1.0 ✗' });
			}
			panels.push({
				title: `Healthy, TLS ${2 * oneWayMs} ms round trip, ${items} Gets`,
				bars: [
					...defaultsBars((name) => ({ value: m[name] / best })),
					...fixed.map((p) => ({ label: String(p), value: m[`fixed${p}`] / best })),
					{ label: 'HTTP Req.', value: m.httpRequest / best },
				],
			});
		}
	});
}

// ---------------------------------------------------------------------------
// Throttled and loaded services

interface Outcome {
	ms: number;
	refused: number;
	failed: number;
}

interface Scenario {
	key: string;
	label: string;
	throttle: ThrottleSettings;
	items: number;
}

const SCENARIOS: Record<string, Scenario[]> = {
	throttled: [
		{ key: 'c4', label: 'throttled at 4 in flight', throttle: { maxInFlight: 4, latencyMs: 20 }, items: THROTTLED_ITEMS },
		{ key: 'c16', label: 'throttled at 16 in flight', throttle: { maxInFlight: 16, latencyMs: 20 }, items: THROTTLED_ITEMS },
		{ key: 'c64', label: 'throttled at 64 in flight', throttle: { maxInFlight: 64, latencyMs: 20 }, items: THROTTLED_ITEMS },
		{ key: 'r50', label: 'throttled at 50 per second', throttle: { maxPerSecond: 50, latencyMs: 20 }, items: THROTTLED_ITEMS },
	],
	/** A limit on requests at once and one per second together, each about as near as the other (not in a run without arguments). */
	both: [
		{ key: 'c4r120', label: 'throttled at 4 in flight and 120 per second', throttle: { maxInFlight: 4, maxPerSecond: 120, latencyMs: 20 }, items: THROTTLED_ITEMS },
		{ key: 'c16r300', label: 'throttled at 16 in flight and 300 per second', throttle: { maxInFlight: 16, maxPerSecond: 300, latencyMs: 20 }, items: THROTTLED_ITEMS },
	],
	load: [
		{ key: 'load', label: 'latency grows beyond 12 in flight', throttle: { latencyMs: 20, capacity: 12 }, items: THROTTLED_ITEMS },
		{ key: 'loadSquare', label: 'latency grows beyond 12 in flight, squared', throttle: { latencyMs: 20, capacity: 12, growth: 2 }, items: THROTTLED_ITEMS },
	],
};

/** What a run without arguments measures: every part but `both`. */
const DEFAULT_PARTS = ['healthy', 'throttled', 'load'];

let firstRuns = 0;

async function againstThrottle(scenario: Scenario): Promise<void> {
	const items = Array.from({ length: scenario.items }, () => ({ json: { id: 1 } }));
	const get = (parallel?: number): INodeParameters => ({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}'), ...(parallel ? inParallel(parallel) : {}) });
	const once = async (workflow: () => ReturnType<typeof workplaceWith>): Promise<Outcome> => {
		await admin('PUT', '/throttle', scenario.throttle);
		const { ms, result } = await run(workflow());
		const counts = await admin<ThrottleCounts>('GET', '/throttle');
		if (outputOf(result).length !== scenario.items) throw new Error(`${scenario.key}: ${outputOf(result).length} of ${scenario.items} items`);
		return { ms, refused: counts.refused, failed: failedItems(result) };
	};
	const later = `${scenario.key}-later`;
	const laterRun = () => workplaceWith(4, later, get(), items, true);
	const hourRun = () => workplaceWith(4, `${scenario.key}-hour`, get(), items, true);
	let hourPrimed = false;
	const variants: Record<string, () => Promise<Outcome>> = {
		firstRun: () => once(() => workplaceWith(4, `${scenario.key}-first-${++firstRuns}`, get(), items, true)),
		// The run right after another one with the same credential (the other variants' runs and the hour skipped come between its passes).
		laterRuns: async () => {
			await once(laterRun);
			return await once(laterRun);
		},
		// An hour after its own last run (the first time, a run before it).
		hourLater: async () => {
			if (!hourPrimed) await once(hourRun);
			hourPrimed = true;
			skipAhead(HOUR);
			return await once(hourRun);
		},
		...Object.fromEntries(FIXED.map((p) => [`fixed${p}`, () => once(() => workplaceWith(3, `${scenario.key}-fixed`, get(p), items, true))])),
	};
	const outcomes: Record<string, Outcome[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
	for (let r = 0; r < RUNS; r++) {
		for (const [name, variant] of Object.entries(variants)) {
			if (r > 0 && outcomes[name][0].ms > ONCE_AFTER_MS) continue;
			const outcome = await variant();
			outcomes[name].push(outcome);
			console.log(`${scenario.key} ${name} run ${r + 1}: ${(outcome.ms / 1000).toFixed(2)} s, ${outcome.refused} refused, ${outcome.failed} failed`);
		}
	}
	const medianOf = (name: string): Outcome & { runs: number } => {
		const list = outcomes[name];
		return { ms: median(list.map((o) => o.ms)), refused: median(list.map((o) => o.refused)), failed: median(list.map((o) => o.failed)), runs: list.length };
	};
	const m = Object.fromEntries(Object.keys(variants).map((name) => [name, medianOf(name)]));
	// The baseline is the fastest setting that failed no item; when every one measured failed some, the fastest of them (said in its row).
	const clean = FIXED.filter((p) => m[`fixed${p}`].failed === 0);
	const candidates = clean.length > 0 ? clean : FIXED;
	const bestAt = candidates.reduce((a, b) => (m[`fixed${b}`].ms < m[`fixed${a}`].ms ? b : a), candidates[0]);
	const best = m[`fixed${bestAt}`].ms;
	results[scenario.key] = { throttle: scenario.throttle as IDataObject, items: scenario.items, bestFixed: bestAt, outcomes: outcomes as unknown as IDataObject, medians: m as unknown as IDataObject };

	const label = `${scenario.label}, ${scenario.items} Gets`;
	const value = (o: Outcome & { runs: number }) =>
		`${(o.ms / 1000).toFixed(2)} s, ${o.refused} refused (${((100 * o.refused) / (scenario.items + o.refused)).toFixed(1)} %), ${o.failed} failed${o.runs < RUNS ? `, ${o.runs} run` : ''}`;
	rows.push({ part: label, what: clean.length > 0 ? `node's best fixed setting without failures (${bestAt} at a time)` : `node's fastest fixed setting, every one measured failed items (${bestAt} at a time)`, value: value(m[`fixed${bestAt}`]), ratio: '1.00× (baseline)' });
	for (const [name, when] of DEFAULTS) {
		const o = m[name];
		const share = o.refused / (scenario.items + o.refused);
		const ok = o.ms / best <= 1.2 && share <= 0.01 && o.failed === 0;
		rows.push({ part: '', what: `node version 4 defaults, ${when}`, value: value(o), ratio: x(o.ms / best), goal: `≤ 1.2×, ≤ 1 % refused, 0 failed ${ok ? '✓' : '✗'}` });
	}
	for (const p of FIXED) rows.push({ part: '', what: `fixed, ${p} at a time (version 3)`, value: value(m[`fixed${p}`]), ratio: x(m[`fixed${p}`].ms / best) });
	panels.push({
		title: `${scenario.label[0].toUpperCase()}${scenario.label.slice(1)}, ${scenario.items} Gets`,
		bars: [
			...defaultsBars((name) => ({ value: m[name].ms / best, note: costNote(m[name]) })),
			...FIXED.map((p) => {
				const o = m[`fixed${p}`];
				return { label: String(p), value: o.ms / best, note: costNote(o) };
			}),
		],
	});
}

async function main(): Promise<void> {
	const parts = new Set((process.argv[2] ?? DEFAULT_PARTS.join(',')).split(','));
	({ child, ready } = await startEmulatorChild({ BENCH_FILE_BYTES: '1024' }));
	try {
		console.log(`Emulator in child process ${child.pid} at ${ready.url}; Node ${process.version}; runs: ${RUNS}`);
		await setUpEngine(ready, 'default');
		// Warm-up of the engine in this process: module loading, JIT.
		await run(workplaceWith(3, 'warm-up', { resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}') }, Array.from({ length: 200 }, () => ({ json: { id: 1 } }))));
		const chosen = (part: string, scenario: Scenario) => parts.has(part) || parts.has(scenario.key);
		for (const [part, scenarios] of Object.entries(SCENARIOS)) {
			for (const scenario of scenarios) if (chosen(part, scenario)) await againstThrottle(scenario);
		}
		if (parts.has('healthy')) await healthy();
		await admin('DELETE', '/throttle');
		saveResults('bench-adaptive', rows, { runs: RUNS, results }, {
			file: 'performance-adaptive.png',
			title: 'Node version 4 (adaptive) against every fixed Requests in Parallel: time / the best fixed setting without failed items',
			panels,
			note: `median of ${RUNS} runs (${LINK_RUNS} over the healthy link), n8n-core engine, emulator on 127.0.0.1 (build/bench/adaptive.js); bars above the top are cut, their value written in them`,
			everyPart: parts.has('healthy') && DEFAULT_PARTS.filter((part) => part !== 'healthy').every((part) => SCENARIOS[part].every((scenario) => chosen(part, scenario))),
		});
	} finally {
		tearDownEngine();
		child.send({ kind: 'close' });
	}
}

runBench(main);
