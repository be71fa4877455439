/**
 * A knowledge file's content into n8n's binary data, streamed: the one download
 * path, used by the Download operation and by the knowledge trigger's Include
 * File Content option.
 */
import type { IBinaryData, IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import { apiRequest, read, type ApiResponse, type CountedBody, type SendOptions, type StreamRequest } from '../transport';
import { baseMimeType, fileNameFromDisposition, storeBinary } from '../binaryFile';
import { ownEntry } from '../ownEntry';
import { EXTENSION_MIME_TYPES } from './file';

/** A file's content as a stream, at most `maxBytes` (Max Download Size; the transport's default when not given). */
export function downloadRequest(knowledgeId: number, fileId: number, maxBytes?: number): StreamRequest {
	return { api: 'knowledgeBase', method: 'GET', path: ['knowledge', knowledgeId, 'files', fileId, 'download'], stream: true, ...(maxBytes === undefined ? {} : { maxBytes }) };
}

export interface DownloadedFile {
	/** The file's name as the service gives it, path segments and all. */
	originalName: string;
	/** The binary's name: originalName as a plain file name (plainFileName). */
	fileName: string;
	mimeType: string;
	size: number;
	sha256: string | null;
	binary: IBinaryData;
}

/** Stores a download's streamed body as a binary under a plain file name; the service's name stays in originalName. */
export async function storeDownload(
	ctx: IExecuteFunctions | IPollFunctions,
	response: ApiResponse<CountedBody>,
	knowledgeId: number,
	fileId: number,
	/** The item and its request settings, when the download is an operation's (none for the trigger). */
	sending: SendOptions = {},
): Promise<DownloadedFile> {
	const body = response.body;
	let fileName = fileNameFromDisposition(response.headers['content-disposition']);
	let mimeType = baseMimeType(response.headers['content-type']);
	if (!fileName) {
		// The name as uploaded lives in the file's meta; the download does not always carry it.
		let file: ReturnType<typeof read.object>;
		let answered = false;
		try {
			const answer = await apiRequest(ctx, { api: 'knowledgeBase', method: 'GET', path: ['knowledge', knowledgeId, 'files', fileId] }, sending);
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
	mimeType ??= (extension && ownEntry(EXTENSION_MIME_TYPES, extension)) || 'application/octet-stream';

	const fallback = `knowledge-file-${fileId}`;
	const binary = await storeBinary(ctx, body, fileName, mimeType, fallback);
	return { originalName: fileName, fileName: binary.fileName ?? fallback, mimeType, size: body.counter.bytes, sha256: body.counter.sha256 ?? null, binary };
}

/**
 * Downloads a file, at most `maxBytes`, and stores it as a binary (the
 * trigger's path; Download goes through the router). `sending`: the poll's
 * request settings.
 */
export async function downloadFile(ctx: IPollFunctions, knowledgeId: number, fileId: number, maxBytes: number, sending: SendOptions = {}): Promise<DownloadedFile> {
	const request = { ...downloadRequest(knowledgeId, fileId, maxBytes), operation: `Download file ${fileId} of knowledge base ${knowledgeId}` };
	const response = await apiRequest(ctx, request, sending);
	return await storeDownload(ctx, response, knowledgeId, fileId, sending);
}
