/**
 * The file transfers the benchmarks measure, written once: Knowledge File
 * Download (→ n8n's binary store) and Download → Replace as workflows for the
 * engine, and their raw counterparts (http.get piped to a file, a streamed
 * multipart PUT from a file), each checked by sha256.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import * as http from 'node:http';
import { pipeline } from 'node:stream/promises';

import FormData from 'form-data';
import type { INode, INodeParameters } from 'n8n-workflow';

import type { EmulatorAccess } from '../emulator/clientCredentials';
import type { WorkflowJson } from '../testbed/engine';
import { CREDENTIALS } from '../testbed/testbed';
import { byId } from '../testbed/locator';
import { MAX_DOWNLOAD_SIZE_MB } from '../shared/maxDownloadSize';

/** A knowledge file by its knowledge base and id. */
export interface FileRef {
	knowledgeId: number;
	fileId: number;
}

/** The file a replace overwrites: faq.csv of knowledge base 2 in the emulator's seed. */
export const REPLACE_TARGET: FileRef = { knowledgeId: 2, fileId: 7 };

function step(operation: string, nodeName: string, x0: number, file: FileRef, parameters: INodeParameters = {}): INode {
	return {
		id: nodeName,
		name: nodeName,
		type: 'n8n-nodes-workplace.workplace',
		typeVersion: 1,
		position: [x0, 0],
		parameters: { resource: 'knowledgeFile', operation, binaryPropertyName: 'data', knowledgeId: byId(file.knowledgeId), fileId: byId(file.fileId), ...parameters },
		credentials: { workplaceKnowledgeBaseApi: { id: CREDENTIALS.knowledgeBase.id, name: CREDENTIALS.knowledgeBase.name } },
	};
}

/** Manual Trigger → Download `source` (node "Download"), and the same → Replace `target` with it (node "Replace"). */
export function transferWorkflows(source: FileRef, target: FileRef = REPLACE_TARGET): { downloadOnly: WorkflowJson; roundTrip: WorkflowJson } {
	const trigger: INode = { id: 't', name: 'Manual Trigger', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
	// Files larger than any the service keeps (1 GB), to see memory against size: the largest Max Download Size there is.
	const download = step('download', 'Download', 200, source, { options: { maxDownloadSize: MAX_DOWNLOAD_SIZE_MB } });
	const replace = step('replace', 'Replace', 400, target);
	return {
		downloadOnly: { name: 'download', nodes: [trigger, download], connections: { 'Manual Trigger': { main: [[{ node: 'Download', type: 'main', index: 0 }]] } } },
		roundTrip: {
			name: 'round trip',
			nodes: [trigger, download, replace],
			connections: {
				'Manual Trigger': { main: [[{ node: 'Download', type: 'main', index: 0 }]] },
				Download: { main: [[{ node: 'Replace', type: 'main', index: 0 }]] },
			},
		},
	};
}

/** Raw download of `source` with `agent`, piped into `file`; rejects unless its sha256 is `sha256`. */
export function rawDownload(access: EmulatorAccess, agent: http.Agent, source: FileRef, file: string, sha256: string): Promise<void> {
	const url = `${access.url}/api/v1/knowledge/${source.knowledgeId}/files/${source.fileId}/download`;
	return new Promise<void>((resolve, reject) => {
		http.get(url, { agent, headers: { 'x-api-key': access.credentials.apiKey } }, (response) => {
			const hash = createHash('sha256');
			response.on('data', (chunk: Buffer) => hash.update(chunk));
			pipeline(response, createWriteStream(file)).then(() => {
				if (hash.digest('hex') !== sha256) reject(new Error('raw download: sha256 mismatch'));
				else resolve();
			}, reject);
		}).on('error', reject);
	});
}

/** Raw streamed multipart PUT of `file` (`size` bytes) over `target`. */
export function rawReplace(access: EmulatorAccess, agent: http.Agent, file: string, size: number, target: FileRef = REPLACE_TARGET): Promise<void> {
	return new Promise<void>((resolve, reject) => {
		const form = new FormData();
		form.append('file', createReadStream(file), { filename: 'big-report.pdf', contentType: 'application/pdf', knownLength: size });
		const request = http.request(
			`${access.url}/api/v1/knowledge/${target.knowledgeId}/files/${target.fileId}`,
			{ method: 'PUT', agent, headers: { 'x-api-key': access.credentials.apiKey, ...form.getHeaders(), 'content-length': String(form.getLengthSync()) } },
			(response) => {
				response.resume();
				response.on('end', () => ((response.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`raw replace answered ${response.statusCode}`))));
			},
		);
		request.on('error', reject);
		form.pipe(request);
	});
}
