/**
 * `npm run bench:profile`: where one item's time goes. Runs 1,000 × Knowledge
 * Base → Get (the node at its defaults) in n8n-core's engine against the
 * emulator (a child process), under V8's CPU profiler: the same sampling
 * profiler as `node --cpu-prof`, started through node:inspector after a
 * warm-up so module loading and start-up are not in the profile. Writes
 * build/profile/kb-get-<target>.cpuprofile (open it in Chrome DevTools) and prints the
 * top ten frames by self time and the time by origin (n8n-core, axios, the
 * node's own code, Node's internals, ...).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import path from 'node:path';

import { byId } from '../testbed/locator';
import { httpRequestKbGet, inParallel, int, outputOf, run, runBench, setUpEngine, startEmulatorChild, tearDownEngine, workplace } from './common';
import { ROOT } from '../testbed/root';

const ITEMS = int('BENCH_ITEMS', 1000);
const RUNS = int('BENCH_PROFILE_RUNS', 5);

/** Where a frame's code comes from, by its script's path. */
function origin(url: string, name: string): string {
	if (url === '') return name.startsWith('(') ? name : 'V8 / native';
	if (url.startsWith('node:')) return "Node's internals";
	if (url.includes('/dist/nodes/') || url.includes('/dist/credentials/')) return 'Workplace node (dist/)';
	const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url.replace(/.*node_modules\//, 'node_modules/'));
	if (match) return match[1];
	return path.relative(ROOT, url.replace('file://', ''));
}

interface Frame {
	name: string;
	where: string;
	origin: string;
	selfMs: number;
}

function summarise(profile: Profiler.Profile): { frames: Frame[]; origins: Map<string, number>; totalMs: number } {
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const selfSamples = new Map<number, number>();
	for (const id of profile.samples ?? []) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
	const deltas = profile.timeDeltas ?? [];
	const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, deltas.length);
	const frames = new Map<string, Frame>();
	const origins = new Map<string, number>();
	for (const [id, samples] of selfSamples) {
		const { callFrame } = byId.get(id)!;
		const file = callFrame.url ? callFrame.url.replace(/.*node_modules\//, '').replace(`file://${ROOT}/`, '').replace(`${ROOT}/`, '') : '';
		const where = file ? `${file}:${callFrame.lineNumber + 1}` : '';
		const key = `${callFrame.functionName}@${where}`;
		const from = origin(callFrame.url, callFrame.functionName);
		const frame = frames.get(key) ?? { name: callFrame.functionName || '(anonymous)', where, origin: from, selfMs: 0 };
		frame.selfMs += samples * msPerSample;
		frames.set(key, frame);
		origins.set(from, (origins.get(from) ?? 0) + samples * msPerSample);
	}
	const totalMs = (profile.endTime - profile.startTime) / 1000;
	return { frames: [...frames.values()].sort((a, b) => b.selfMs - a.selfMs), origins, totalMs };
}

async function main(): Promise<void> {
	const { child, ready } = await startEmulatorChild({ BENCH_FILE_BYTES: '1024' });
	try {
		// BENCH_PACKAGE_ROOT profiles another build of the package (e.g. a checkout of an earlier commit).
		await setUpEngine(ready, 'default', process.env.BENCH_PACKAGE_ROOT);
		const items = Array.from({ length: ITEMS }, () => ({ json: { id: 1 } }));
		// BENCH_PROFILE_PARALLEL=1 profiles the node one item at a time (its defaults otherwise).
		const parallel = process.env.BENCH_PROFILE_PARALLEL ? inParallel(Number(process.env.BENCH_PROFILE_PARALLEL)) : {};
		// BENCH_PROFILE=httpRequest profiles n8n's HTTP Request node (header inline) the same way, for comparison.
		const target = process.env.BENCH_PROFILE ?? 'workplace';
		const workflow =
			target === 'httpRequest'
				? httpRequestKbGet(ready, 'inline', items)
				: workplace({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}'), ...parallel }, items);
		const once = async () => {
			const { ms, result } = await run(workflow);
			if (outputOf(result).length !== ITEMS) throw new Error('profile: wrong output');
			return ms;
		};
		await once();
		await once();
		const session = new Session();
		session.connect();
		await session.post('Profiler.enable');
		// 200 µs between samples (V8's default is 1 ms): enough samples to see the node's own share.
		await session.post('Profiler.setSamplingInterval', { interval: 200 });
		await session.post('Profiler.start');
		let took = 0;
		for (let r = 0; r < RUNS; r++) took += await once();
		const { profile } = await session.post('Profiler.stop');
		session.disconnect();

		const dir = path.join(ROOT, 'build/profile');
		mkdirSync(dir, { recursive: true });
		writeFileSync(path.join(dir, `kb-get-${target}.cpuprofile`), JSON.stringify(profile));
		const { frames, origins, totalMs } = summarise(profile);
		const items_ = ITEMS * RUNS;
		const perItem = (v: number) => `${((v / items_) * 1000).toFixed(1)} µs/item`;
		const pct = (v: number) => `${((v / totalMs) * 100).toFixed(1)}%`;
		console.log(`${RUNS} runs × ${ITEMS} Knowledge Base → Get (${target}, defaults): ${(took / items_).toFixed(3)} ms/item wall time; profile ${totalMs.toFixed(0)} ms, sampled on this process only`);
		console.log('\nTop ten frames by self time:');
		frames.slice(0, 10).forEach((f, k) => console.log(`${String(k + 1).padStart(2)}. ${pct(f.selfMs).padStart(6)}  ${perItem(f.selfMs).padStart(14)}  ${f.name}  ${f.where}  [${f.origin}]`));
		console.log('\nSelf time by origin:');
		for (const [from, v] of [...origins.entries()].sort((a, b) => b[1] - a[1]).slice(0, 14)) {
			console.log(`${pct(v).padStart(6)}  ${perItem(v).padStart(14)}  ${from}`);
		}
		writeFileSync(path.join(dir, `kb-get-${target}-summary.json`), `${JSON.stringify({ items: items_, msPerItem: took / items_, totalMs, top: frames.slice(0, 10), origins: Object.fromEntries(origins) }, null, 2)}\n`);
	} finally {
		tearDownEngine();
		child.send({ kind: 'close' });
	}
}

runBench(main);
