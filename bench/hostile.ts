/**
 * `npm run bench:hostile`: the package against a hostile service, in n8n-core's
 * engine. For each of the emulator's hostile modes (a listing that never ends,
 * a body trickled byte by byte, a 150 MB download, a gzip bomb) it arms the
 * emulator (in a process of its own), runs one scenario in a fresh process
 * (bench/hostile-child.ts) and prints what came of it, how long it took and
 * how far the process's memory (RSS, sampled every 2 ms) rose above where it
 * stood before; a scenario still running at its cap is stopped there. Binary
 * data is kept in memory (n8n's `default` mode, its default before 2.0), where
 * a download weighs most.
 *
 * HOSTILE_BASELINE_ROOT names another checkout of the package, built (its
 * dist/), measured the same way in the same run: the code before a change,
 * printed as "before" beside this tree's "after". Figures, not tests.
 */
import { emulatorAdmin, measureInChild, runBench, startEmulatorChild } from './common';
import { ROOT } from '../testbed/root';
import type { HostileFigures, HostileTask, Scenario } from './hostile-child';

const MiB = 1024 * 1024;

interface Measurement {
	label: string;
	/** Fault rules as the emulator's admin route takes them. */
	faults: object[];
	scenario: Scenario;
	capMs: number;
}

const files = '/api/v1/knowledge/1/files';
const endless = { method: 'GET', path: files, times: 'Infinity', action: { kind: 'endlessList', pageSize: 100 } };
const trickle = (path: string) => ({ method: 'GET', path, times: 'Infinity', action: { kind: 'trickle', intervalMs: 100 } });
const oversize = (contentLength: boolean) => ({ method: 'GET', path: { regex: '/download$' }, action: { kind: 'oversize', bytes: 150 * MiB, contentLength } });
const bomb = (path: string) => ({ method: 'GET', path, action: { kind: 'gzipBomb' } });

const MEASUREMENTS: Measurement[] = [
	{ label: 'no fault: Knowledge Base → Get (the process alone)', faults: [], scenario: 'get', capMs: 60_000 },
	{ label: 'never-ending listing: Knowledge Trigger poll', faults: [endless], scenario: 'triggerPoll', capMs: 30_000 },
	{ label: 'never-ending listing: Get Many (Return All)', faults: [endless], scenario: 'getMany', capMs: 30_000 },
	{ label: 'trickled body: Get, Timeout 2,000 ms, 1 attempt', faults: [trickle('/api/v1/knowledge/1')], scenario: 'getWithin2s', capMs: 60_000 },
	{ label: 'trickled body: credential Test', faults: [trickle('/api/v1/knowledge')], scenario: 'credentialTest', capMs: 60_000 },
	{ label: '150 MB download, no Content-Length: Knowledge Trigger, Include File Content', faults: [oversize(false)], scenario: 'triggerSample', capMs: 60_000 },
	{ label: '150 MB download, with Content-Length: the same', faults: [oversize(true)], scenario: 'triggerSample', capMs: 60_000 },
	{ label: 'gzip bomb (256 MB unpacked): credential Test', faults: [bomb('/api/v1/knowledge')], scenario: 'credentialTest', capMs: 60_000 },
	{ label: 'gzip bomb (256 MB unpacked): Get', faults: [bomb('/api/v1/knowledge/1')], scenario: 'get', capMs: 60_000 },
];

const mb = (bytes: number) => `${(bytes / MiB).toFixed(0)} MB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function main(): Promise<void> {
	const { child: emulator, ready } = await startEmulatorChild({ BENCH_FILE_BYTES: '1024' });
	const admin = (method: string, route: string, body?: object) => emulatorAdmin(ready, method, route, body);
	const roots: Array<[string, string]> = [
		...(process.env.HOSTILE_BASELINE_ROOT ? ([['before', process.env.HOSTILE_BASELINE_ROOT]] as Array<[string, string]>) : []),
		['after', ROOT],
	];
	try {
		console.log(`Emulator in child process ${emulator.pid}; Node ${process.version}; a fresh process per run; binary data in memory (n8n 1.x's default; n8n 2.x keeps it on disk)`);
		for (const measurement of MEASUREMENTS) {
			const figures: Record<string, HostileFigures> = {};
			for (const [name, packageRoot] of roots) {
				await admin('POST', '/reset');
				for (const fault of measurement.faults) await admin('POST', '/faults', fault);
				const task: HostileTask = { access: { url: ready.url, credentials: ready.credentials }, packageRoot, scenario: measurement.scenario, capMs: measurement.capMs };
				figures[name] = await measureInChild<HostileFigures>('hostile-child.js', task, measurement.scenario, { stdout: 'ignore' });
				await admin('DELETE', '/faults');
			}
			console.log(`\n${measurement.label}`);
			for (const [name] of roots) {
				const f = figures[name];
				console.log(`  ${name.padEnd(6)} ${seconds(f.ms).padStart(7)}  memory +${mb(f.peak - f.before).padStart(6)} (${mb(f.before)} → ${mb(f.peak)})  ${f.outcome}`);
			}
			if (figures.before && figures.after) {
				const growth = (f: HostileFigures) => Math.max(1, f.peak - f.before);
				console.log(`  after/before: time ${(figures.after.ms / figures.before.ms).toFixed(2)}×, memory growth ${(growth(figures.after) / growth(figures.before)).toFixed(2)}×`);
			}
		}
	} finally {
		emulator.send({ kind: 'close' });
	}
}

runBench(main);
