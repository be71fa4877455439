import { apiRequest, read, type StreamRequest } from '../../transport';
import { knowledgeBaseLocator } from '../common.descriptions';
import type { OperationDefinition } from '../types';
import { requiredText } from '../validation';
import { EXTENSION_MIME_TYPES, fileIds, knowledgeFileLocator } from './common';

/** File name from a Content-Disposition header: RFC 5987 `filename*` first, then `filename`. */
export function fileNameFromDisposition(header: unknown): string | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string') return undefined;
	const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(value);
	if (extended) {
		try {
			const decoded = decodeURIComponent(extended[2].trim());
			if (decoded) return decoded;
		} catch {
			// A malformed extended name: the plain one may still be good.
		}
	}
	const quoted = /filename\s*=\s*"((?:[^"\\]|\\.)*)"/i.exec(value);
	if (quoted) return quoted[1].replace(/\\(.)/g, '$1') || undefined;
	const bare = /filename\s*=\s*([^;\s]+)/i.exec(value);
	return bare?.[1] || undefined;
}

function baseMimeType(header: unknown): string | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string') return undefined;
	const mime = value.split(';')[0].trim().toLowerCase();
	return mime || undefined;
}

export const download: OperationDefinition<StreamRequest> = {
	value: 'download',
	name: 'Download',
	action: 'Download a knowledge file',
	description: 'Download a file\'s content into a binary field, streamed',
	properties: [
		knowledgeBaseLocator,
		knowledgeFileLocator,
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			hint: 'The name of the output binary field to put the file in',
		},
	],
	request(i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		requiredText(this, i, 'binaryPropertyName', 'Put Output File in Field');
		return {
			area: 'knowledgeBase',
			method: 'GET',
			path: ['knowledge', knowledgeId, 'files', fileId, 'download'],
			stream: true,
		};
	},
	async output(response, i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		const property = requiredText(this, i, 'binaryPropertyName', 'Put Output File in Field');
		const body = response.body;
		let fileName = fileNameFromDisposition(response.headers['content-disposition']);
		let mimeType = baseMimeType(response.headers['content-type']);
		if (!fileName) {
			// The name as uploaded lives in the file's meta; the download does not always carry it.
			let file: ReturnType<typeof read.object>;
			let answered = false;
			try {
				const answer = await apiRequest(this, { area: 'knowledgeBase', method: 'GET', path: ['knowledge', knowledgeId, 'files', fileId] }, i);
				file = read.object(answer.body);
				answered = true;
			} finally {
				// Failed look-up: let go of the download's connection before the error surfaces.
				if (!answered) body.stream.destroy();
			}
			const meta = read.object(file?.meta);
			fileName = read.text(meta?.originalName) ?? fileName;
			if (!mimeType) mimeType = baseMimeType(meta?.mimetype);
		}
		fileName ??= `knowledge-file-${fileId}`;
		const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
		mimeType ??= (extension && EXTENSION_MIME_TYPES[extension]) || 'application/octet-stream';

		// n8n reads a path out of the name it is given; hand it one without separators, then keep the exact name.
		const binary = await body.stored(this.helpers.prepareBinaryData(body.stream, fileName.replace(/[/\\]/g, '_'), mimeType));
		binary.fileName = fileName;
		delete binary.directory;
		return [
			{
				json: {
					id: fileId,
					knowledgeId,
					originalName: fileName,
					mimeType,
					size: body.meter.bytes,
					sha256: body.meter.sha256 ?? null,
				},
				binary: { [property]: binary },
			},
		];
	},
};
