/**
 * One measurement of `npm run bench:hostile` in a fresh process: loads the
 * engine and a package (this one, or the baseline's) and runs one scenario
 * against the hostile emulator the parent started and armed, stopping it at
 * `capMs` if it has not ended by then. Reports what came of it, how long it
 * took, and the RSS just before and at its highest while it ran.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { EmulatorAccess } from '../emulator/clientCredentials';
import { createPoller, runWorkflow, testCredential } from '../testbed/engine';
import { CREDENTIALS, knowledgeTriggerNode } from '../testbed/testbed';
import { byId } from '../testbed/locator';
import { endsWithBench } from './childProcess';
import { helper, loadedNodeTypes, peakRss, setUpEngine, tearDownEngine, workplace } from './common';

/** What the child runs; the parent arms the emulator's fault for it. */
export type Scenario = 'triggerPoll' | 'triggerSample' | 'getMany' | 'get' | 'getWithin2s' | 'credentialTest';

export interface HostileTask {
	access: EmulatorAccess;
	packageRoot: string;
	scenario: Scenario;
	capMs: number;
}

export interface HostileFigures {
	kind: 'figures';
	/** What the run came to: its error, its output in short, or "still running" at the cap. */
	outcome: string;
	ms: number;
	before: number;
	peak: number;
}

const KB = 1;

function poller(parameters: INodeParameters) {
	return createPoller({ nodeTypes: loadedNodeTypes(), credentialsHelper: helper, node: knowledgeTriggerNode(parameters) });
}

/** A node run's error, or its output in short. */
async function nodeRun(parameters: INodeParameters): Promise<string> {
	const result = await runWorkflow({ workflow: workplace(parameters, [{ json: {} }]), nodeTypes: loadedNodeTypes(), credentialsHelper: helper });
	const summary = result.nodes.Workplace?.[0];
	if (summary?.error) return `error: ${summary.error.message}`;
	const items = summary?.outputs[0] ?? [];
	return `${items.length} item${items.length === 1 ? '' : 's'} out`;
}

async function pollOnce(parameters: INodeParameters, mode: 'trigger' | 'manual'): Promise<string> {
	try {
		const result = await poller(parameters).poll(mode);
		const items = result?.[0] ?? [];
		return `${items.length} item${items.length === 1 ? '' : 's'} out`;
	} catch (error) {
		return `error: ${(error as Error).message}`;
	}
}

const SCENARIOS: Record<Scenario, () => Promise<string>> = {
	/** The knowledge trigger's poll of one knowledge base (a first poll reads the whole listing too). */
	triggerPoll: async () => await pollOnce({ watch: 'knowledgeBase', knowledgeId: byId(KB), events: ['fileAdded'] }, 'trigger'),
	/** A manual run of the knowledge trigger with Include File Content: the newest file, downloaded. */
	triggerSample: async () => await pollOnce({ watch: 'knowledgeBase', knowledgeId: byId(KB), events: ['fileAdded'], options: { includeContent: true } }, 'manual'),
	getMany: async () => await nodeRun({ resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(KB), returnAll: true }),
	get: async () => await nodeRun({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(KB) }),
	getWithin2s: async () =>
		await nodeRun({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(KB), options: { timeout: 2000, retry: { retry: { maxAttempts: 1 } } } }),
	credentialTest: async () => JSON.stringify(await testCredential(helper, CREDENTIALS.knowledgeBase.id, loadedNodeTypes())),
};

process.once('message', (task: HostileTask) => {
	void (async () => {
		// Binary data in memory (n8n's `default` mode), where a download weighs most.
		await setUpEngine(task.access, 'default', task.packageRoot);
		let outcome = `still running after ${task.capMs / 1000} s`;
		const started = performance.now();
		let ms = 0;
		const { before, peak } = await peakRss(async () => {
			const cap = new Promise<void>((resolve) => setTimeout(resolve, task.capMs).unref());
			await Promise.race([
				SCENARIOS[task.scenario]().then((said) => {
					outcome = said;
				}),
				cap,
			]);
			ms = performance.now() - started;
		});
		const figures: HostileFigures = { kind: 'figures', outcome: outcome.slice(0, 300), ms, before, peak };
		process.send!(figures, () => {
			tearDownEngine();
			// A scenario still running at the cap is left to the process's end.
			process.exit(0);
		});
	})();
});
endsWithBench(() => {
	tearDownEngine();
	process.exit(0);
});
