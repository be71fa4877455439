/**
 * Streamed reading of a bot multipart body: file parts are hashed chunk by chunk
 * (never buffered), plain fields kept, and every part recorded in
 * request.logParts for the request log.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart'; // request.parts() / isMultipart() typings
import type { LoggedPart } from '../types';

export interface ReadFile {
	/** The part's field name. */
	name: string;
	filename: string;
	contentType: string;
	size: number;
	sha256: string;
}

export interface ReadForm {
	/** Plain fields by name, repeated parts in order. */
	fields: Map<string, string[]>;
	files: ReadFile[];
}

/** A file part went over the route's limit (the stream stopped there). */
export class FileTooLargeError extends Error {
	constructor(readonly limit: number) {
		super(`File is larger than the limit of ${limit} bytes`);
	}
}

/** Reads every part; with fileSizeLimit a larger file part throws FileTooLargeError. */
export async function readForm(request: FastifyRequest, fileSizeLimit?: number): Promise<ReadForm> {
	const logParts: LoggedPart[] = [];
	// Assigned up front so the log shows the parts read so far even if a limit aborts the stream.
	request.logParts = logParts;
	const out: ReadForm = { fields: new Map(), files: [] };
	const parts = fileSizeLimit === undefined ? request.parts() : request.parts({ limits: { fileSize: fileSizeLimit } });
	try {
		for await (const part of parts) {
			if (part.type === 'file') {
				const hash = createHash('sha256');
				let size = 0;
				for await (const chunk of part.file) {
					hash.update(chunk);
					size += (chunk as Buffer).length;
				}
				const file = { name: part.fieldname, filename: part.filename, contentType: part.mimetype, size, sha256: hash.digest('hex') };
				logParts.push({ name: file.name, filename: file.filename, contentType: file.contentType, size, sha256: file.sha256 });
				out.files.push(file);
				continue;
			}
			const value = typeof part.value === 'string' ? part.value : JSON.stringify(part.value);
			logParts.push({ name: part.fieldname, size: Buffer.byteLength(value), value });
			const list = out.fields.get(part.fieldname) ?? [];
			list.push(value);
			out.fields.set(part.fieldname, list);
		}
	} catch (err) {
		if (fileSizeLimit !== undefined && (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
			throw new FileTooLargeError(fileSizeLimit);
		}
		throw err;
	}
	return out;
}
