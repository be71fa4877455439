/**
 * The measured clients of bench part e (a slow, encrypted link), in their own
 * process: NODE_EXTRA_CA_CERTS, which makes Node trust the run's certificate,
 * is read only when a process starts, so the parent sets it for this one.
 * Every client runs in n8n-core's engine: raw https loops as a node (with and
 * without keep-alive), n8n's HTTP Request node, and the Workplace node at its
 * defaults and at each parallelism. TCP connections are counted by the proxy,
 * through the parent.
 */
import * as https from 'node:https';

import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { EmulatorAccess } from '../emulator/clientCredentials';
import type { WorkflowJson } from '../testbed/engine';
import { byId } from '../testbed/locator';
import { httpRequestKbGet, inParallel, kbGetLoop, measure, outputOf, RAW_JOBS, raw, run, setUpEngine, tearDownEngine, workplace } from './common';

export interface SlowLinkStart {
	kind: 'start';
	/** The emulator as seen through the proxy (its https:// address, its secrets). */
	access: EmulatorAccess;
	items: number;
	runs: number;
	parallelism: number[];
}

export interface SlowLinkResults {
	kind: 'results';
	/** Median ms per item of each variant. */
	msPerItem: Record<string, number>;
	/** TCP connections one run of each variant opened (its last run). */
	connections: Record<string, number>;
}

let pending: ((count: number) => void) | undefined;

/** The proxy's connection count so far, asked through the parent. */
function connectionsSoFar(): Promise<number> {
	return new Promise((resolve) => {
		pending = resolve;
		process.send!({ kind: 'connections' });
	});
}

async function main(config: SlowLinkStart): Promise<void> {
	const { access, items: count } = config;
	await setUpEngine(access, 'default');
	const items: INodeExecutionData[] = Array.from({ length: count }, () => ({ json: { id: 1 } }));
	// A fresh agent per run, destroyed after it: each run pays its own first connection.
	let agent: https.Agent | undefined;
	RAW_JOBS.set('keepAlive', async (input) => await kbGetLoop((agent = new https.Agent({ keepAlive: true })), access)(input));
	RAW_JOBS.set('close', async (input) => await kbGetLoop((agent = new https.Agent({ keepAlive: false })), access)(input));

	const connections: Record<string, number> = {};
	const timed = (name: string, workflow: WorkflowJson) => async () => {
		const before = await connectionsSoFar();
		const { ms, result } = await run(workflow);
		agent?.destroy();
		agent = undefined;
		connections[name] = (await connectionsSoFar()) - before;
		const out = outputOf(result);
		if (out.length !== count || out.some((o) => o.json.id !== 1)) throw new Error(`e: ${name}: wrong output`);
		return ms / count;
	};
	const node = (parameters: INodeParameters) => workplace({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}'), ...parameters }, items);
	const variants: Record<string, () => Promise<number>> = {
		rawKeepAlive: timed('rawKeepAlive', raw('keepAlive', items)),
		rawClose: timed('rawClose', raw('close', items)),
		httpRequest: timed('httpRequest', httpRequestKbGet(access, 'inline', items)),
		nodeDefaults: timed('nodeDefaults', node({})),
		...Object.fromEntries(config.parallelism.map((p) => [`node${p}`, timed(`node${p}`, node(inParallel(p)))])),
	};
	// Warm-up: JIT, module loading, the HTTP Request node's first load.
	for (const variant of Object.values(variants)) await variant();
	const msPerItem = await measure(variants, config.runs);
	const results: SlowLinkResults = { kind: 'results', msPerItem, connections };
	process.send!(results);
}

process.on('message', (message: SlowLinkStart | { kind: 'connections'; count: number } | { kind: 'close' }) => {
	if (message.kind === 'close') {
		tearDownEngine();
		process.exit(0);
	} else if (message.kind === 'connections') {
		pending?.(message.count);
		pending = undefined;
	} else if (message.kind === 'start') {
		main(message).catch((error: unknown) => {
			console.error(error);
			tearDownEngine();
			process.exit(1);
		});
	}
});
process.on('disconnect', () => {
	tearDownEngine();
	process.exit(0);
});
