/**
 * Binary data in and out of the node. In: an input item's binary as the file
 * part of a multipart upload, streamed from n8n's binary store when it lives
 * there (filesystem mode), so memory does not grow with its size; else the
 * buffer n8n already holds. Its size is known up front, so the upload has a
 * Content-Length. Out: a downloaded stream into n8n's binary data.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

import type { FilePart, MeteredBody } from '../transport';
import { invalid } from './validation';

export interface BinaryFile {
	property: string;
	fileName: string;
	/** The binary's own type, when it has one. */
	mimeType?: string;
	size: number;
	/** The file part; a stored binary is opened anew for every send (a stream can be read only once). */
	part(field: string): FilePart;
}

/** The binary property `property` of item i, checked to exist and not be empty; `field` names it in errors. */
export async function binaryFile(ctx: IExecuteFunctions, i: number, property: string, field: string): Promise<BinaryFile> {
	const binary = ctx.getInputData()[i]?.binary?.[property];
	if (!binary) throw invalid(ctx, i, field, `the item has no binary field "${property}"`);
	const fileName = binary.fileName || 'file';
	const mimeType = binary.mimeType || undefined;
	const id = binary.id;
	const buffer = id ? undefined : await ctx.helpers.getBinaryDataBuffer(i, property);
	const size = id ? (await ctx.helpers.getBinaryMetadata(id)).fileSize : buffer!.length;
	if (size === 0) throw invalid(ctx, i, field, `the binary field "${property}" is empty`);
	return {
		property,
		fileName,
		mimeType,
		size,
		part: (name) => ({
			field: name,
			fileName,
			contentType: mimeType ?? 'application/octet-stream',
			size,
			content: id ? async () => await ctx.helpers.getBinaryStream(id) : buffer!,
		}),
	};
}

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

export function baseMimeType(header: unknown): string | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string') return undefined;
	const mime = value.split(';')[0].trim().toLowerCase();
	return mime || undefined;
}

/** A downloaded body into n8n's binary data (to disk in filesystem mode), under its exact name. */
export async function storeBinary(ctx: IExecuteFunctions, body: MeteredBody, fileName: string, mimeType: string): Promise<IBinaryData> {
	// n8n reads a path out of the name it is given; hand it one without separators, then keep the exact name.
	const binary = await body.stored(ctx.helpers.prepareBinaryData(body.stream, fileName.replace(/[/\\]/g, '_'), mimeType));
	binary.fileName = fileName;
	delete binary.directory;
	return binary;
}
