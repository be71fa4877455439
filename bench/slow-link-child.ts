/**
 * The measured clients of a slow, encrypted link (bench part e and the adaptive
 * benchmark), in their own process: NODE_EXTRA_CA_CERTS, which makes Node trust
 * the run's certificate, is read only when a process starts, so the parent sets
 * it for this one. Every client runs in n8n-core's engine: raw https loops as a
 * node (with and without keep-alive), n8n's HTTP Request node, and the
 * Workplace node at a type version and parallelism. TCP connections are
 * counted by the proxy, through the parent. The parent asks for one
 * measurement at a time.
 */
import * as https from 'node:https';

import type { INodeExecutionData } from 'n8n-workflow';

import type { EmulatorAccess } from '../emulator/clientCredentials';
import type { WorkflowJson } from '../testbed/engine';
import { skipAhead } from '../testbed/clock';
import { byId } from '../testbed/locator';
import { endsWithBench } from './childProcess';
import { httpRequestKbGet, inParallel, kbGetLoop, measure, outputOf, RAW_JOBS, raw, run, setUpEngine, tearDownEngine, workplaceWith } from './common';

/** One client of the link. */
export type LinkVariant =
	| { name: string; kind: 'rawKeepAlive' | 'rawClose' }
	| { name: string; kind: 'httpRequest'; auth: 'inline' | 'credential' }
	/**
	 * The Workplace node (Knowledge Base → Get) at `typeVersion`, `parallel` items
	 * at a time when given; `firstRun`: a credential of its own for every run, so
	 * each run meets the service as a first run does (version 4 learns per credential);
	 * `runBefore`: each run right after one of its own, not measured (a later run,
	 * whatever time other variants skipped); `unusedMs`: each run that long after
	 * the variant's last one (skipped with testbed/clock.ts, not waited).
	 */
	| { name: string; kind: 'workplace'; typeVersion: number; parallel?: number; firstRun?: boolean; runBefore?: boolean; unusedMs?: number };

export interface LinkMeasure {
	kind: 'measure';
	/** The emulator as seen through the proxy (its https:// address, its secrets). */
	access: EmulatorAccess;
	items: number;
	runs: number;
	variants: LinkVariant[];
}

export interface LinkResults {
	kind: 'results';
	/** Median ms per item of each variant. */
	msPerItem: Record<string, number>;
	/** TCP connections one run of each variant opened (its last run). */
	connections: Record<string, number>;
}

let pending: ((count: number) => void) | undefined;
let engineFor: string | undefined;
let credentials = 0;

/** The proxy's connection count so far, asked through the parent. */
function connectionsSoFar(): Promise<number> {
	return new Promise((resolve) => {
		pending = resolve;
		process.send!({ kind: 'connections' });
	});
}

async function measureLink(config: LinkMeasure): Promise<void> {
	const { access, items: count } = config;
	if (engineFor !== access.url) {
		await setUpEngine(access, 'default');
		engineFor = access.url;
	}
	const items: INodeExecutionData[] = Array.from({ length: count }, () => ({ json: { id: 1 } }));
	// A fresh agent per run, destroyed after it: each run pays its own first connection.
	let agent: https.Agent | undefined;
	RAW_JOBS.set('keepAlive', async (input) => await kbGetLoop((agent = new https.Agent({ keepAlive: true })), access)(input));
	RAW_JOBS.set('close', async (input) => await kbGetLoop((agent = new https.Agent({ keepAlive: false })), access)(input));

	const workflowOf = (variant: LinkVariant): (() => WorkflowJson) => {
		switch (variant.kind) {
			case 'rawKeepAlive':
				return () => raw('keepAlive', items);
			case 'rawClose':
				return () => raw('close', items);
			case 'httpRequest':
				return () => httpRequestKbGet(access, variant.auth, items);
			case 'workplace': {
				const parameters = { resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}'), ...(variant.parallel ? inParallel(variant.parallel) : {}) };
				const shared = `link-${variant.name}`;
				return () => workplaceWith(variant.typeVersion, variant.firstRun ? `link-first-${++credentials}` : shared, parameters, items);
			}
		}
	};
	const connections: Record<string, number> = {};
	const timed = (variant: LinkVariant) => {
		const workflow = workflowOf(variant);
		return async () => {
			if (variant.kind === 'workplace' && variant.runBefore) await run(workflow());
			if (variant.kind === 'workplace' && variant.unusedMs) skipAhead(variant.unusedMs);
			const before = await connectionsSoFar();
			const { ms, result } = await run(workflow());
			agent?.destroy();
			agent = undefined;
			connections[variant.name] = (await connectionsSoFar()) - before;
			const out = outputOf(result);
			if (out.length !== count || out.some((o) => o.json.id !== 1)) throw new Error(`link: ${variant.name}: wrong output`);
			return ms / count;
		};
	};
	const variants = Object.fromEntries(config.variants.map((variant) => [variant.name, timed(variant)]));
	// Warm-up: JIT, module loading, the HTTP Request node's first load (and what a later run of version 4 starts from).
	for (const variant of Object.values(variants)) await variant();
	const msPerItem = await measure(
		Object.fromEntries(
			Object.entries(variants).map(([name, variant]) => [
				name,
				async () => {
					const took = await variant();
					console.log(`link ${count} ${name}: ${took.toFixed(2)} ms/item`);
					return took;
				},
			]),
		),
		config.runs,
	);
	const results: LinkResults = { kind: 'results', msPerItem, connections };
	process.send!(results);
}

process.on('message', (message: LinkMeasure | { kind: 'connections'; count: number } | { kind: 'close' }) => {
	if (message.kind === 'close') {
		tearDownEngine();
		process.exit(0);
	} else if (message.kind === 'connections') {
		pending?.(message.count);
		pending = undefined;
	} else if (message.kind === 'measure') {
		measureLink(message).catch((error: unknown) => {
			console.error(error);
			tearDownEngine();
			process.exit(1);
		});
	}
});
endsWithBench(() => {
	tearDownEngine();
	process.exit(0);
});
