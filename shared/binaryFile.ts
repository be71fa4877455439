/**
 * Binary data in and out of the node. In: an input item's binary as the file
 * part of a multipart upload, streamed from n8n's binary store when it lives
 * there (filesystem mode), so memory does not grow with its size; else the
 * data n8n already holds in the item, decoded only when it is sent. Its size is known up front, so the upload has a
 * Content-Length. Out: a downloaded stream into n8n's binary data.
 */
import type { IBinaryData, IExecuteFunctions, IPollFunctions } from 'n8n-workflow';

import type { FilePart, CountedBody } from './transport';
import { invalid } from './validation';
import { ownEntry } from './ownEntry';

export interface BinaryFile {
	property: string;
	fileName: string;
	/** The binary's own type, when it has one. */
	mimeType?: string;
	size: number;
	/** The file part; a stored binary is opened anew for every send (a stream can be read only once). */
	part(field: string): FilePart;
}

/** The binary field `property` of item i: one of the item's own fields (a name such as "toString" is none); `field` names it in errors. */
export function ownBinary(ctx: IExecuteFunctions, i: number, property: string, field: string): IBinaryData {
	const held = ctx.getInputData()[i]?.binary;
	const binary = held ? ownEntry(held, property) : undefined;
	if (!binary) throw invalid(ctx, i, field, `the item has no binary field "${property}"`);
	return binary;
}

/** The binary property `property` of item i, checked to exist and not be empty; `field` names it in errors. */
export async function binaryFile(ctx: IExecuteFunctions, i: number, property: string, field: string): Promise<BinaryFile> {
	const binary = ownBinary(ctx, i, property, field);
	const fileName = binary.fileName || 'file';
	const mimeType = binary.mimeType || undefined;
	const size = await binarySize(ctx, binary);
	if (size === 0) throw invalid(ctx, i, field, `the binary field "${property}" is empty`);
	const id = binary.id;
	const content = id ? async () => await ctx.helpers.getBinaryStream(id) : async () => await heldBytes(ctx, i, property, size, field);
	return {
		property,
		fileName,
		mimeType,
		size,
		part: (name) => ({ field: name, fileName, contentType: mimeType ?? 'application/octet-stream', size, content }),
	};
}

/**
 * The binary's size without reading it: from n8n's binary store, or from the
 * length of the data the item holds (n8n's memory mode). Nothing is decoded
 * while a request is built, so requests built ahead of sending hold no copy of
 * their files (BuiltRequests, in the Workplace node).
 */
export async function binarySize(ctx: IExecuteFunctions, binary: IBinaryData): Promise<number> {
	if (binary.id) return (await ctx.helpers.getBinaryMetadata(binary.id)).fileSize;
	const data = binary.data ?? '';
	// Data with line breaks or other characters (e.g. from a Code node) has no size by its length: decode it to know.
	return /^[A-Za-z0-9+/]*={0,2}$/.test(data) ? Buffer.byteLength(data, 'base64') : Buffer.from(data, 'base64').length;
}

/** The bytes item i holds in memory mode, decoded when they are sent, and checked to be the size announced. */
export async function heldBytes(ctx: IExecuteFunctions, i: number, property: string, size: number, field: string): Promise<Buffer> {
	const bytes = await ctx.helpers.getBinaryDataBuffer(i, property);
	if (bytes.length !== size) {
		throw invalid(ctx, i, field, `the binary field "${property}" holds ${bytes.length} bytes, not the ${size} its data announced`);
	}
	return bytes;
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

/**
 * A name the service gave a file, as a plain file name: the part after the last
 * "/" or "\\", without control characters; `fallback` when nothing usable is
 * left (empty, or only dots). A name such as `../../../home/node/.n8n/config`
 * would otherwise reach a Write Files to Disk node as a path out of its folder.
 */
export function plainFileName(name: string, fallback: string): string {
	const last = name.split(/[/\\]/).pop() ?? '';
	const plain = last.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim();
	return plain === '' || /^\.+$/.test(plain) ? fallback : plain;
}

/**
 * A downloaded body into n8n's binary data (to disk in filesystem mode), under
 * a plain file name (plainFileName); the caller keeps the service's name in the item's fields.
 */
export async function storeBinary(
	ctx: IExecuteFunctions | IPollFunctions,
	body: CountedBody,
	fileName: string,
	mimeType: string,
	fallback: string,
): Promise<IBinaryData> {
	const plain = plainFileName(fileName, fallback);
	const binary = await body.stored(ctx.helpers.prepareBinaryData(body.stream, plain, mimeType));
	binary.fileName = plain;
	delete binary.directory;
	return binary;
}
