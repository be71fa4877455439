/**
 * Peak memory of a real n8n running one workflow: `n8n execute --id` in a
 * fresh process, its peak resident set (VmHWM in /proc/<pid>/status, the
 * kernel's own high-water mark) read until it exits. Used by the binary data
 * suite and by `npm run bench:n8n-memory`; Linux only.
 */
import { readFileSync } from 'node:fs';

import { EXAMPLE_CREDENTIALS } from './examples';
import { MAX_DOWNLOAD_SIZE_MB } from '../shared/maxDownloadSize';
import { parseRawOutput, type ExecuteResult, type N8n } from './n8n';
import { byId } from './locator';
import { chainWorkflow, MANUAL_START, type ChainNode, type ChainWorkflow } from './chainWorkflow';

/** A process's peak resident set size in bytes, as the kernel counts it; undefined once it is gone. */
export function peakResidentBytes(pid: number | 'self' = 'self'): number | undefined {
	try {
		const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
		return match ? Number(match[1]) * 1024 : undefined;
	} catch {
		return undefined;
	}
}

/** One `n8n execute --id --rawOutput` run, watched: its exit, what it printed, its peak RSS and its time. */
interface WatchedRun {
	code: number | null;
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	peakBytes: number;
	ms: number;
	/** Stopped at the cap, still running. */
	stopped: boolean;
}

/**
 * Runs `n8n execute --id=<workflowId> --rawOutput` with `env` in a fresh
 * process and reads its peak resident set (VmHWM in /proc/<pid>/status, which
 * only rises) every 20 ms until it exits, so the last reading holds the peak of
 * the whole run, start-up included. With `capMs`, a run still going then is
 * stopped (SIGKILL) and reported as such.
 */
async function watchedExecute(n8n: N8n, workflowId: string, env: Record<string, string>, capMs?: number): Promise<WatchedRun> {
	const started = Date.now();
	const child = await n8n.spawn(['execute', `--id=${workflowId}`, '--rawOutput'], env);
	let stdout = '';
	let stderr = '';
	child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	let peakBytes = 0;
	const read = () => {
		const hwm = child.pid === undefined ? undefined : peakResidentBytes(child.pid);
		if (hwm !== undefined && hwm > peakBytes) peakBytes = hwm;
	};
	const timer = setInterval(read, 20);
	let stopped = false;
	const cap = capMs === undefined ? undefined : setTimeout(() => ((stopped = true), child.kill('SIGKILL')), capMs);
	const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (...end) => resolve(end)));
	clearInterval(timer);
	if (cap) clearTimeout(cap);
	if (peakBytes === 0) throw new Error(`no VmHWM read for n8n execute --id=${workflowId} (not Linux?)`);
	return { code, signal, stdout, stderr, peakBytes, ms: Date.now() - started, stopped };
}

/**
 * `n8n execute --id=<workflowId> --rawOutput` with `env`, and the process's
 * peak RSS (watchedExecute). A process that a signal ends (n8n 2.41.1's
 * `execute` sometimes crashes with SIGSEGV while shutting down, after printing
 * its result) is run again, up to three times in all, so a figure always comes
 * from a run that ended normally.
 */
export async function executeWithPeakRss(n8n: N8n, workflowId: string, env: Record<string, string>): Promise<{ result: ExecuteResult; peakBytes: number }> {
	for (let attempt = 1; ; attempt++) {
		const { code, signal, stdout, peakBytes } = await watchedExecute(n8n, workflowId, env);
		if (signal !== null && attempt < 3) {
			console.warn(`n8n execute --id=${workflowId} ended by ${signal} (attempt ${attempt}); running it again`);
			continue;
		}
		if (code !== 0) throw new Error(`n8n execute --id=${workflowId} exited with ${code ?? signal}:\n${n8n.output.join('').slice(-4000)}`);
		return { result: parseRawOutput(stdout), peakBytes };
	}
}

/**
 * `n8n execute` of a workflow that may fail or never end (against a hostile
 * service): what it printed (stdout, then stderr), its peak RSS and time,
 * stopped at `capMs`. Failing is an outcome here, not an error.
 */
export async function executeWithin(n8n: N8n, workflowId: string, env: Record<string, string>, capMs: number): Promise<{ output: string; peakBytes: number; ms: number; stopped: boolean }> {
	const { stdout, stderr, peakBytes, ms, stopped } = await watchedExecute(n8n, workflowId, env, capMs);
	return { output: `${stdout}\n${stderr}`, peakBytes, ms, stopped };
}

/** A workflow as `n8n import:workflow` takes it. */
export type StoredWorkflow = ChainWorkflow;

const KB_CREDENTIAL = { workplaceKnowledgeBaseApi: EXAMPLE_CREDENTIALS.workplaceKnowledgeBaseApi };

/** Read/Write Files from Disk reading `filePath` into n8n's binary store as `fileName` (application/pdf). */
const readFromDisk = (filePath: string, fileName: string): ChainNode => ({
	name: 'Read',
	type: 'n8n-nodes-base.readWriteFile',
	typeVersion: 1.1,
	parameters: { operation: 'read', fileSelector: filePath, options: { fileName, mimeType: 'application/pdf' } },
});

/** Manual Trigger → Workplace Knowledge File Download of `fileId` in `knowledgeId` (node "Download"). */
export function downloadWorkflow(id: string, knowledgeId: number, fileId: number): StoredWorkflow {
	return chainWorkflow(id, `Download file ${fileId} (memory)`, [
		MANUAL_START,
		{
			name: 'Download',
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 2,
			// Files larger than any the service keeps, to see memory against size: the largest Max Download Size there is.
			parameters: { resource: 'knowledgeFile', operation: 'download', knowledgeId: byId(knowledgeId), fileId: byId(fileId), binaryPropertyName: 'data', options: { maxDownloadSize: MAX_DOWNLOAD_SIZE_MB } },
			credentials: KB_CREDENTIAL,
		},
	]);
}

/**
 * Manual Trigger → Read/Write Files from Disk (reads `filePath` into n8n's
 * binary store as `fileName`, application/pdf) → Workplace Knowledge File
 * Replace of `fileId` in `knowledgeId` (node "Replace"): an upload on its own.
 */
export function uploadWorkflow(id: string, filePath: string, fileName: string, knowledgeId: number, fileId: number): StoredWorkflow {
	return chainWorkflow(id, `Replace file ${fileId} from disk (memory)`, [
		MANUAL_START,
		readFromDisk(filePath, fileName),
		{
			name: 'Replace',
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 2,
			parameters: { resource: 'knowledgeFile', operation: 'replace', knowledgeId: byId(knowledgeId), fileId: byId(fileId), binaryPropertyName: 'data', options: {} },
			credentials: KB_CREDENTIAL,
		},
	]);
}

/**
 * The same download with n8n's own HTTP Request node (4.2, the package's
 * Knowledge Base credential as a predefined credential type, the response
 * kept as a file): what n8n itself needs to put a file of that size in its store.
 */
export function httpRequestDownloadWorkflow(id: string, baseUrl: string, knowledgeId: number, fileId: number): StoredWorkflow {
	return chainWorkflow(id, `HTTP Request download of file ${fileId} (memory)`, [
		MANUAL_START,
		{
			name: 'Download',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			parameters: {
				method: 'GET',
				url: `${baseUrl}/api/v1/knowledge/${knowledgeId}/files/${fileId}/download`,
				authentication: 'predefinedCredentialType',
				nodeCredentialType: 'workplaceKnowledgeBaseApi',
				options: { response: { response: { responseFormat: 'file', outputPropertyName: 'data' } } },
			},
			credentials: KB_CREDENTIAL,
		},
	]);
}

/** Manual Trigger → Read/Write Files from Disk of `filePath` alone: n8n's own part of the upload workflow. */
export function readWorkflow(id: string, filePath: string, fileName: string): StoredWorkflow {
	return chainWorkflow(id, `Read ${fileName} from disk (memory)`, [MANUAL_START, readFromDisk(filePath, fileName)]);
}
