/**
 * `npm run bench:files`: peak memory growth of a 100 MB knowledge file going
 * download → replace through the Workplace node in n8n's real engine, with
 * n8n's binary data in filesystem mode; beside it, the same trip done the plain
 * buffered way (fetch → arrayBuffer, upload a Buffer) in the same run.
 *
 * The emulator runs in a child process, so only the client side is measured.
 * Peak RSS is sampled every 2 ms above a baseline taken after a warm-up run and
 * a forced GC (run with --expose-gc). Goal: the node stays < 64 MB above
 * baseline. A figure, not a test: nothing here asserts timing or memory.
 * BENCH_FILE_BYTES sets another file size (the replace step needs ≤ 100 MB).
 *
 * What the node's figure is made of: chunks already written to disk but not
 * yet collected. V8 collects them when external memory has grown by about
 * 64 MB, so the figure levels off there whatever the file size (measured:
 * 10 MB → ~19 MB, 50 MB → ~65 MB, 100/200/400 MB download → ~65 MB).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';

import type { INode, INodeParameters } from 'n8n-workflow';

import {
	InMemoryCredentialsHelper,
	initHarnessEnv,
	loadCommunityPackage,
	runWorkflow,
	type WorkflowJson,
} from '../test/harness/engine';
import type { ChildReady } from './emulator-child';

const ROOT = path.resolve(__dirname, '../..');
const MB = 1024 * 1024;
const GOAL_MB = 64;
const TARGET = { knowledgeId: 2, fileId: 7 };

function ask<T>(child: ChildProcess, message: object, kind: string): Promise<T> {
	return new Promise((resolve) => {
		const listener = (answer: { kind: string }) => {
			if (answer.kind !== kind) return;
			child.off('message', listener);
			resolve(answer as T);
		};
		child.on('message', listener);
		if (Object.keys(message).length > 0) child.send(message);
	});
}

function settle(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (gc) {
		gc();
		gc();
	}
}

/** Runs `work` and returns the highest RSS seen above the RSS just before it. */
async function peakGrowth(work: () => Promise<void>): Promise<{ baseline: number; peak: number }> {
	settle();
	await new Promise((resolve) => setTimeout(resolve, 200));
	const baseline = process.memoryUsage.rss();
	let peak = baseline;
	const sample = () => {
		const rss = process.memoryUsage.rss();
		if (rss > peak) peak = rss;
	};
	const timer = setInterval(sample, 2);
	try {
		await work();
	} finally {
		sample();
		clearInterval(timer);
	}
	return { baseline, peak };
}

function roundTrip(from: { knowledgeId: number; fileId: number }): WorkflowJson {
	const credentials = { workplaceKnowledgeBaseApi: { id: 'bench', name: 'Bench' } };
	const node = (name: string, x: number, parameters: INodeParameters): INode => ({
		id: name,
		name,
		type: 'n8n-nodes-workplace.workplace',
		typeVersion: 1,
		position: [x, 0],
		parameters,
		credentials,
	});
	const id = (value: number) => ({ __rl: true, mode: 'id', value: String(value) });
	return {
		name: 'bench round trip',
		nodes: [
			{ id: 't', name: 'Manual Trigger', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			node('Download', 200, {
				resource: 'knowledgeFile',
				operation: 'download',
				knowledgeId: id(from.knowledgeId),
				fileId: id(from.fileId),
				binaryPropertyName: 'data',
			}),
			node('Replace', 400, {
				resource: 'knowledgeFile',
				operation: 'replace',
				knowledgeId: id(TARGET.knowledgeId),
				fileId: id(TARGET.fileId),
				binaryPropertyName: 'data',
			}),
		],
		connections: {
			'Manual Trigger': { main: [[{ node: 'Download', type: 'main', index: 0 }]] },
			Download: { main: [[{ node: 'Replace', type: 'main', index: 0 }]] },
		},
	};
}

const mb = (bytes: number) => (bytes / MB).toFixed(1).padStart(7);

async function main(): Promise<void> {
	if (!(globalThis as { gc?: unknown }).gc) console.warn('(run with --expose-gc for steadier baselines)');
	const child = fork(path.join(__dirname, 'emulator-child.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
	try {
		const ready = await ask<ChildReady>(child, {}, 'ready');
		console.log(`Emulator (child process ${child.pid}): ${ready.url}; file of ${ready.size} bytes (${(ready.size / MB).toFixed(0)} MB)`);

		const env = await initHarnessEnv({ binaryDataMode: 'filesystem' });
		const { nodeTypes, credentialTypes } = loadCommunityPackage(ROOT);
		const credentialsHelper = new InMemoryCredentialsHelper(credentialTypes);
		credentialsHelper.set({
			id: 'bench',
			name: 'Bench',
			type: 'workplaceKnowledgeBaseApi',
			data: { baseUrl: ready.url, apiKey: ready.apiKey },
		});
		const verify = async (label: string) => {
			const stored = await ask<{ sha256: string; size: number }>(child, { kind: 'file', fileId: TARGET.fileId }, 'file');
			if (stored.sha256 !== ready.sha256) throw new Error(`${label}: the replaced file's sha256 does not match the original`);
		};

		// Warm-up: load the engine, nodes and HTTP stack with a small file (the seeded handbook.pdf).
		const warm = await runWorkflow({ workflow: roundTrip({ knowledgeId: 1, fileId: 1 }), nodeTypes, credentialsHelper });
		if (warm.status !== 'success') throw new Error(`warm-up failed: ${JSON.stringify(warm.error)}`);

		// 1. Through the node: streamed both ways, binary data on disk.
		let nodeSha: unknown;
		const node = await peakGrowth(async () => {
			const result = await runWorkflow({ workflow: roundTrip(ready), nodeTypes, credentialsHelper });
			if (result.status !== 'success') throw new Error(`node run failed: ${result.error?.message}`);
			nodeSha = result.json('Download')[0].sha256;
		});
		if (nodeSha !== ready.sha256) throw new Error('node: the downloaded sha256 does not match');
		await verify('node');

		// 2. The plain buffered way: whole body in memory, uploaded from a Buffer.
		const buffered = await peakGrowth(async () => {
			const headers = { 'x-api-key': ready.apiKey };
			const response = await fetch(`${ready.url}/api/v1/knowledge/${ready.knowledgeId}/files/${ready.fileId}/download`, { headers });
			const content = Buffer.from(await response.arrayBuffer());
			if (createHash('sha256').update(content).digest('hex') !== ready.sha256) throw new Error('buffered: sha256 mismatch');
			const form = new FormData();
			form.append('file', new Blob([content], { type: 'application/pdf' }), 'big-report.pdf');
			const put = await fetch(`${ready.url}/api/v1/knowledge/${TARGET.knowledgeId}/files/${TARGET.fileId}`, {
				method: 'PUT',
				headers,
				body: form,
			});
			if (!put.ok) throw new Error(`buffered upload answered ${put.status}`);
		});
		await verify('buffered');

		const nodeGrowth = node.peak - node.baseline;
		const bufferedGrowth = buffered.peak - buffered.baseline;
		console.log('');
		console.log(`Peak RSS growth above baseline, ${(ready.size / MB).toFixed(0)} MB file, download → replace (sha256 verified):`);
		console.log(`  Workplace node, n8n filesystem binary mode  ${mb(nodeGrowth)} MB   (baseline ${mb(node.baseline).trim()} MB)`);
		console.log(`  plain buffered (arrayBuffer + Buffer upload) ${mb(bufferedGrowth)} MB   (baseline ${mb(buffered.baseline).trim()} MB)`);
		console.log(`  ratio node / buffered                        ${(nodeGrowth / bufferedGrowth).toFixed(3).padStart(7)}`);
		console.log(`  goal: node < ${GOAL_MB} MB → ${nodeGrowth < GOAL_MB * MB ? 'met' : 'NOT met'}`);
		console.log(`  (binary data written under ${env.binaryStoragePath})`);
		env.cleanup();
	} finally {
		child.send({ kind: 'close' });
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
