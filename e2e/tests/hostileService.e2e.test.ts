/**
 * A hostile or broken service against a real n8n 2.41.1 with the package
 * installed: a listing that never ends, a body trickled byte by byte, a
 * 150 MB download without Content-Length, a gzip bomb (256 MB unpacked),
 * each met by the context that meets it in production. Workflows run with
 * `n8n execute` in a fresh process each, whose peak resident set (VmHWM) is
 * read; the Knowledge Trigger's manual run and the credential Test run in the
 * `n8n start` process, whose resident set is sampled while they run. Binary
 * data in n8n 2.41.1's default mode (on disk).
 *
 * Every run's figures are printed first (what came of it, its time, its
 * memory above a plain run's), then checked: each context fails clearly, in
 * bounded time and memory. E2E_HOSTILE_CAP_MS (default 90 s) stops a run that
 * has not ended; the code before the request path ran into it.
 */
import { readFileSync } from 'node:fs';

import type { FaultRule } from '../../emulator/server';
import { gzipBombBytes } from '../../emulator/common/hostile';
import { exampleCredential } from '../../testbed/examples';
import { parseRawOutput } from '../../testbed/n8n';
import { executeWithin } from '../../testbed/peakMemory';
import { chainWorkflow, MANUAL_START, type ChainNode } from '../../testbed/chainWorkflow';
import { byId } from '../../testbed/locator';
import { e2eTestbed } from '../lib/testbed';
import { KNOWLEDGE, noOp, workplaceNode } from '../lib/workflows';

const MiB = 1024 * 1024;
const CAP_MS = Number(process.env.E2E_HOSTILE_CAP_MS ?? 90_000);
const KB = 1;

const workplace = (name: string, parameters: Record<string, unknown>): ChainNode => workplaceNode(name, KNOWLEDGE, parameters, 2);

const WORKFLOWS = {
	get: chainWorkflow('wpHostileGet', 'Get (hostile e2e)', [MANUAL_START, workplace('Get', { resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(KB) })]),
	getWithin2s: chainWorkflow('wpHostileTrickle', 'Get, Timeout 2 s (hostile e2e)', [
		MANUAL_START,
		workplace('Get', { resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(KB), options: { timeout: 2000, retry: { retry: { maxAttempts: 1 } } } }),
	]),
	getMany: chainWorkflow('wpHostileList', 'Get Many (hostile e2e)', [MANUAL_START, workplace('Get Many', { resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(KB), returnAll: true })]),
	download: chainWorkflow('wpHostileDownload', 'Download (hostile e2e)', [
		MANUAL_START,
		workplace('Download', { resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(KB), fileId: byId(2), binaryPropertyName: 'data' }),
	]),
	trigger: chainWorkflow('wpHostileTrigger', 'Knowledge Trigger (hostile e2e)', [
		{
			name: 'Workplace Knowledge Trigger',
			type: 'n8n-nodes-workplace.workplaceKnowledgeTrigger',
			typeVersion: 1,
			parameters: { watch: 'knowledgeBase', knowledgeId: byId(KB), events: ['fileAdded'], options: { includeContent: true } },
			credentials: KNOWLEDGE,
		},
		noOp('Done'),
	]),
};

const files = `/api/v1/knowledge/${KB}/files`;
const FAULTS = {
	endlessListing: { method: 'GET', path: files, times: Infinity, action: { kind: 'endlessList', pageSize: 100 } },
	trickle: (path: string): FaultRule => ({ method: 'GET', path, times: Infinity, action: { kind: 'trickle', intervalMs: 100 } }),
	oversized: { method: 'GET', path: /\/download$/, times: Infinity, action: { kind: 'oversize', bytes: 150 * MiB, contentLength: false } },
	bomb: (path: string): FaultRule => ({ method: 'GET', path, times: Infinity, action: { kind: 'gzipBomb' } }),
} satisfies Record<string, FaultRule | ((path: string) => FaultRule)>;

const bed = e2eTestbed({ credentials: ['workplaceKnowledgeBaseApi'], workflows: Object.values(WORKFLOWS) });

interface Figures {
	label: string;
	/** What came of it: the error or result, in short. */
	outcome: string;
	ms: number;
	/** Memory the run took above a plain run (`n8n execute`) or above where the server stood (in the server). */
	growthBytes: number;
	stopped: boolean;
}
const figures: Figures[] = [];
let plainPeak = 0;

const mb = (bytes: number) => `${Math.round(bytes / MiB)} MB`;

/** What `n8n execute` came to: its run data's error, or that it completed; else the last line it printed. */
function outcomeOf(output: string): string {
	try {
		const { data } = parseRawOutput(output);
		const error = data.resultData.error?.message;
		if (error) return error;
		const last = String(data.resultData.lastNodeExecuted);
		return `completed: ${data.resultData.runData[last]?.[0]?.data?.main[0]?.length ?? 0} item(s) out of ${last}`;
	} catch {
		return output.trim().split('\n').slice(-1)[0].slice(0, 300);
	}
}

async function armed<T>(faults: FaultRule[], run: () => Promise<T>): Promise<T> {
	bed.emulator.reset();
	for (const fault of faults) bed.emulator.faults.add(fault);
	try {
		return await run();
	} finally {
		bed.emulator.faults.clear();
	}
}

/** `n8n execute` of a workflow against `faults`, in a fresh process: its outcome, time and peak above a plain run's. */
async function executed(label: string, workflowId: string, faults: FaultRule[]): Promise<Figures> {
	const run = await armed(faults, async () => await executeWithin(bed.n8n, workflowId, {}, CAP_MS));
	const measured = { label, outcome: run.stopped ? `still running after ${CAP_MS / 1000} s` : outcomeOf(run.output), ms: run.ms, growthBytes: run.peakBytes - plainPeak, stopped: run.stopped };
	figures.push(measured);
	return measured;
}

/** The `n8n start` process's resident set, as the kernel counts it. */
function serverRss(): number {
	const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${String(bed.n8n.server?.pid)}/status`, 'utf8'));
	return match ? Number(match[1]) * 1024 : 0;
}

/** Something done in the server against `faults`, its resident set sampled every 20 ms: outcome, time, growth. */
async function inServer(label: string, faults: FaultRule[], work: () => Promise<string>): Promise<Figures> {
	const before = serverRss();
	let peak = before;
	const timer = setInterval(() => (peak = Math.max(peak, serverRss())), 20);
	const started = Date.now();
	let outcome: string;
	let stopped = false;
	try {
		outcome = await armed(faults, work);
	} catch (error) {
		outcome = (error as Error).message;
		stopped = /still running/.test(outcome);
	} finally {
		clearInterval(timer);
	}
	const measured = { label, outcome: outcome.slice(0, 300), ms: Date.now() - started, growthBytes: peak - before, stopped };
	figures.push(measured);
	return measured;
}

/** The Knowledge Trigger's manual run (the editor's "Fetch test event"), stopped at the cap if it has not ended. */
async function triggerRun(): Promise<string> {
	const started = await bed.rest.request<{ executionId?: string }>('POST', `/rest/workflows/${WORKFLOWS.trigger.id}/run`, { triggerToStartFrom: { name: 'Workplace Knowledge Trigger' } });
	const id = String(started.executionId);
	const execution = await bed.rest.ended(id, CAP_MS).catch(async () => {
		// Stopped, so that it does not run on into the next measurement.
		await bed.rest.request('POST', `/rest/executions/${id}/stop`).catch(() => undefined);
		throw new Error(`still running after ${CAP_MS / 1000} s`);
	});
	return execution.data.resultData.error?.message ?? `${execution.status}: ${JSON.stringify(execution.data.resultData.runData.Done?.[0]?.data?.main[0]?.length ?? 0)} items`;
}

/** The knowledge base credential's Test, as the editor's button sends it. */
async function credentialTest(): Promise<string> {
	const credential = exampleCredential(bed.emulator, 'workplaceKnowledgeBaseApi');
	const result = await bed.rest.request<{ status: string; message: string }>('POST', '/rest/credentials/test', { credentials: credential });
	return `${result.status}: ${result.message}`;
}

beforeAll(async () => {
	// Made before the first request meets it (a second or two of compression in the emulator).
	await gzipBombBytes(256 * MiB);
	plainPeak = (await executeWithin(bed.n8n, WORKFLOWS.get.id, {}, CAP_MS)).peakBytes;
}, 300_000);

test('each context fails clearly against a hostile service, in bounded time and memory', async () => {
	const listing = await executed('never-ending listing: Get Many (Return All)', WORKFLOWS.getMany.id, [FAULTS.endlessListing]);
	const triggerListing = await inServer('never-ending listing: Knowledge Trigger (manual run)', [FAULTS.endlessListing], triggerRun);
	const trickled = await executed('trickled body: Get, Timeout 2,000 ms, 1 attempt', WORKFLOWS.getWithin2s.id, [FAULTS.trickle(`/api/v1/knowledge/${KB}`)]);
	const trickledTest = await inServer('trickled body: credential Test', [FAULTS.trickle('/api/v1/knowledge')], credentialTest);
	const download = await executed('150 MB download, no Content-Length: Download', WORKFLOWS.download.id, [FAULTS.oversized]);
	const triggerDownload = await inServer('150 MB download, no Content-Length: Knowledge Trigger, Include File Content', [FAULTS.oversized], triggerRun);
	const bomb = await executed('gzip bomb (256 MB unpacked): Get', WORKFLOWS.get.id, [FAULTS.bomb(`/api/v1/knowledge/${KB}`)]);
	const bombTest = await inServer('gzip bomb (256 MB unpacked): credential Test', [FAULTS.bomb('/api/v1/knowledge')], credentialTest);

	console.log(
		`hostile service, n8n 2.41.1 (plain \`n8n execute\` peak ${mb(plainPeak)}):\n` +
			figures.map((f) => `  ${f.label}: ${(f.ms / 1000).toFixed(1)} s, memory +${mb(f.growthBytes)}; ${f.outcome}`).join('\n'),
	);

	expect(listing.outcome).toMatch(/Get many knowledge files \(item 0\): the list went on past 100,000 items/);
	expect(triggerListing.outcome).toMatch(/List the files of a knowledge base: the list went on past 100,000 items, .*the recorded state was kept/);
	expect(trickled.outcome).toBe('The service did not answer in time');
	expect(trickledTest.outcome).toBe('Error: The service did not answer in time');
	expect(download.outcome).toMatch(/Download a knowledge file \(item 0\): the download ran past Max Download Size \(100 MB\); it was stopped there and nothing was stored/);
	expect(triggerDownload.outcome).toMatch(/Download file \d+ of knowledge base 1: the download ran past Max Download Size \(100 MB\)/);
	expect(bomb.outcome).toMatch(/Get a knowledge base \(item 0\): the service's answer ran past 16 MB \(counted unpacked\)/);
	expect(bombTest.outcome).toMatch(/^Error: Testing the credential: the service's answer ran past 16 MB/);
	for (const f of figures) expect({ label: f.label, stopped: f.stopped }).toEqual({ label: f.label, stopped: false });
	// A gzip bomb never gets near its 256 MB: reading stops at 16 MB.
	for (const f of [bomb, bombTest]) expect({ label: f.label, under: f.growthBytes < 128 * MiB }).toEqual({ label: f.label, under: true });
});
