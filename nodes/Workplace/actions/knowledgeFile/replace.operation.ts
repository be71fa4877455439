import { createHash } from 'crypto';
import type { IBinaryData, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, ByteCounter, multipartBody, read, type ApiRequest } from '../../../../shared/transport';
import { binarySize, heldBytes, ownBinary } from '../../../../shared/binaryFile';
import { knowledgeBaseLocator, optionsCollection } from '../../../../shared/descriptions';
import type { OperationDefinition } from '../types';
import { sendingItem } from '../requestSettings';
import { invalid, requiredText } from '../../../../shared/validation';
import { EXTENSION_MIME_TYPES, fileIds, fileOutput, knowledgeFileLocator } from '../../../../shared/knowledgeFile/file';
import { ALLOWED_MIME_TYPES, MAX_FILE_NAME_LENGTH, MAX_UPLOAD_BYTES } from './uploadRules';
import { downloadRequest } from '../../../../shared/knowledgeFile/fileContent';
import { ownEntry } from '../../../../shared/ownEntry';
import { simplifyReplacedFile } from '../simplify';

/** Types n8n gives a binary when it does not know better; the extension is the better witness then. */
const GENERIC_MIME_TYPES = new Set(['', 'application/octet-stream', 'binary/octet-stream', 'text/plain']);

/** What was sent, filled in while it streams (the last attempt's, when the transport retried). */
interface Upload {
	fileName: string;
	mimeType: string;
	size: number;
	sha256?: string;
	counter?: ByteCounter;
}

interface ReplaceRequest extends ApiRequest {
	upload: Upload;
	/** Skip If Unchanged: this request reads the stored file first, and `put` is the upload, sent only when the file differs. */
	put?: ReplaceRequest;
}

/** The binary's own type when the service accepts it; else, for a generic type, the one its extension names. */
export function uploadMimeType(binaryMimeType: string | undefined, fileName: string): string | undefined {
	const declared = (binaryMimeType ?? '').split(';')[0].trim().toLowerCase();
	if (ALLOWED_MIME_TYPES.includes(declared)) return declared;
	if (!GENERIC_MIME_TYPES.has(declared)) return undefined;
	const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
	return extension ? ownEntry(EXTENSION_MIME_TYPES, extension) : undefined;
}

/** A counter for the stored binary of item i: it must give the bytes its metadata records. */
function storedBinaryCounter(ctx: IExecuteFunctions, i: number, size: number): ByteCounter {
	return new ByteCounter(size, (received, expected) =>
		invalid(ctx, i, 'Input Binary Field', `the stored binary gave ${received} bytes, not the ${String(expected)} its metadata records`),
	);
}

/** Reads a stream through, keeping nothing (its counter hashes what passes). */
async function drain(source: AsyncIterable<unknown>): Promise<void> {
	for await (const chunk of source) void chunk;
}

/**
 * Skip If Unchanged: whether item i's binary is the stored file. Sizes first
 * (from the file's meta, no download when they differ), then the SHA-256 of the
 * binary and of the stored file's content, both streamed.
 */
async function matchesStored(ctx: IExecuteFunctions, i: number, stored: IDataObject, sent: ReplaceRequest): Promise<boolean> {
	const put = sent.put!;
	if (read.number(read.object(stored.meta)?.size) !== put.upload.size) return false;
	const property = requiredText(ctx, i, 'binaryPropertyName', 'Input Binary Field');
	const binary = ownBinary(ctx, i, property, 'Input Binary Field');
	let local: string | undefined;
	if (binary.id) {
		const counter = storedBinaryCounter(ctx, i, put.upload.size);
		await drain(counter.pass(await ctx.helpers.getBinaryStream(binary.id)));
		local = counter.sha256;
	} else {
		local = createHash('sha256').update(await heldBytes(ctx, i, property, put.upload.size, 'Input Binary Field')).digest('hex');
	}
	const { knowledgeId, fileId } = fileIds(ctx, i);
	const download = await apiRequest(ctx, { subject: sent.subject, operation: sent.operation, ...downloadRequest(knowledgeId, fileId) }, sendingItem(ctx, i));
	await download.body.stored(drain(download.body.stream));
	return download.body.counter.sha256 !== undefined && download.body.counter.sha256 === local;
}

/** What the service's refusals of an upload mean: 413 is its size limit (100 MB), 400 a type or CSV format it does not take. */
function uploadRefusals(i: number): ApiRequest['statusMeanings'] {
	return {
		413: (text) => ({ ...text, message: `The service refused the file of item ${i} as too large (the service accepts at most 100 MB)` }),
		400: (text) => {
			const detail = text.message.replace(/^The service rejected the request:?\s*/, '') || 'unsupported file';
			return {
				message: `The service refused the file of item ${i}: ${detail} (its type or CSV format is not supported)`,
				description: [text.description, `Accepted types: ${ALLOWED_MIME_TYPES.join(', ')}`].filter(Boolean).join('\n'),
			};
		},
	};
}

function megabytes(bytes: number): string {
	return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export const replace: OperationDefinition<ReplaceRequest> = {
	value: 'replace',
	name: 'Replace',
	action: 'Replace a knowledge file',
	description: 'Replace a file\'s content with a binary of the input item, streamed',
	simplify: simplifyReplacedFile,
	properties: [
		knowledgeBaseLocator,
		knowledgeFileLocator,
		{
			displayName: 'Input Binary Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			hint: 'The name of the input binary field holding the file to upload',
			// Said where the file is chosen, not as a notice: each is checked before anything is sent.
			description: `Accepted: CSV, XML, HTML, PDF, RTF, Word, PowerPoint and Excel files up to 100 MB, names up to ${MAX_FILE_NAME_LENGTH} characters`,
		},
		optionsCollection([
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				placeholder: 'e.g. faq.csv',
				description: 'Name to upload the file under, at most 255 characters; by default the binary\'s file name',
			},
			{
				displayName: 'Skip If Unchanged',
				name: 'skipIfUnchanged',
				type: 'boolean',
				default: false,
				description:
					'Whether to compare the binary with the stored file first (size, then the SHA-256 of a streamed download) and not upload it when they match; the output then says <code>skipped: unchanged</code>. Each upload makes the service process the file again.',
			},
		]),
	],
	async request(i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		const property = requiredText(this, i, 'binaryPropertyName', 'Input Binary Field');
		const options = this.getNodeParameter('options', i, {}) as IDataObject;
		const binary: IBinaryData = ownBinary(this, i, property, 'Input Binary Field');

		const override = options.fileName;
		if (override !== undefined && typeof override !== 'string') throw invalid(this, i, 'File Name', 'expected text');
		const fileName = override && override.trim() !== '' ? override : binary.fileName;
		if (!fileName || fileName.trim() === '') {
			throw invalid(this, i, 'File Name', `the binary field "${property}" has no file name; set one in Options → File Name`);
		}
		const nameLength = [...fileName].length;
		if (nameLength > MAX_FILE_NAME_LENGTH) {
			throw invalid(this, i, 'File Name', `must be at most ${MAX_FILE_NAME_LENGTH} characters (got ${nameLength})`);
		}

		const mimeType = uploadMimeType(binary.mimeType, fileName);
		if (!mimeType) {
			throw invalid(
				this,
				i,
				'Input Binary Field',
				`"${fileName}" has type ${binary.mimeType || 'unknown'}, which the service does not accept (accepted: ${ALLOWED_MIME_TYPES.join(', ')})`,
			);
		}

		// Filesystem (or other external) binary mode: streamed from the store. Default mode: decoded from the item when sent.
		const size = await binarySize(this, binary);
		if (size > MAX_UPLOAD_BYTES) {
			throw invalid(
				this,
				i,
				'Input Binary Field',
				`"${fileName}" is ${size} bytes (${megabytes(size)}); the service accepts at most 100 MB (${MAX_UPLOAD_BYTES} bytes)`,
			);
		}

		const upload: Upload = { fileName, mimeType, size };
		const binaryId = binary.id;
		const request: ReplaceRequest = {
			api: 'knowledgeBase',
			method: 'PUT',
			path: ['knowledge', knowledgeId, 'files', fileId],
			// Built anew for every attempt; a stored binary is read afresh, and counted, on every send.
			body: async () => {
				const file = { field: 'file', fileName, contentType: mimeType, size };
				if (binaryId) {
					const open = async () => {
						const counter = storedBinaryCounter(this, i, size);
						upload.counter = counter;
						return counter.pass(await this.helpers.getBinaryStream(binaryId));
					};
					return multipartBody([], { ...file, content: open });
				}
				const bytes = await heldBytes(this, i, property, size, 'Input Binary Field');
				upload.sha256 = createHash('sha256').update(bytes).digest('hex');
				return multipartBody([], { ...file, content: bytes });
			},
			upload,
			statusMeanings: uploadRefusals(i),
		};
		if (options.skipIfUnchanged !== undefined && typeof options.skipIfUnchanged !== 'boolean') throw invalid(this, i, 'Skip If Unchanged', 'expected true or false');
		if (options.skipIfUnchanged !== true) return request;
		return { api: 'knowledgeBase', method: 'GET', path: ['knowledge', knowledgeId, 'files', fileId], upload, put: request };
	},
	async output(response, i, sent) {
		let answer = response;
		let upload = sent.upload;
		if (sent.put) {
			const stored = read.object(response.body) ?? {};
			if (await matchesStored(this, i, stored, sent)) return [{ json: { ...fileOutput(stored), skipped: 'unchanged' } }];
			answer = await apiRequest(this, { subject: sent.subject, operation: sent.operation, ...sent.put }, sendingItem(this, i));
			upload = sent.put.upload;
		}
		const file = read.object(answer.body) ?? {};
		return [
			{
				json: {
					...fileOutput(file),
					upload: {
						originalName: upload.fileName,
						mimetype: upload.mimeType,
						size: upload.size,
						sha256: upload.counter?.sha256 ?? upload.sha256 ?? null,
					},
				},
			},
		];
	},
};
