/**
 * Max Download Size: the option of every download (Knowledge File → Download,
 * Message → Download Picture, the knowledge trigger's Include File Content),
 * and its value read as bytes. The transport stops a download at it
 * (limits.ts, boundedRequest.ts): a larger Content-Length fails before a byte
 * is read, a body that runs past it fails while it streams.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_MAX_DOWNLOAD_BYTES } from './transport/limits';
import { numberValue } from './numberValue';
import { invalid, shownValue } from './validation';

const MB = 1024 * 1024;

/** The largest value the option takes: 10,240 MB (10 GB). */
export const MAX_DOWNLOAD_SIZE_MB = 10_240;
const MAX_MB = MAX_DOWNLOAD_SIZE_MB;

export const maxDownloadSizeOption: INodeProperties = {
	displayName: 'Max Download Size (MB)',
	name: 'maxDownloadSize',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_MB },
	default: 100,
	description:
		'The largest file to download, in MB (1 MB = 1,048,576 bytes). A larger file fails and nothing is stored. The service accepts uploads of at most 100 MB, so none of its files is larger than the default.',
};

/** The option's value as bytes (the default when unset), or why it cannot be used. */
export function maxDownloadBytes(value: unknown): number | { problem: string } {
	if (value === undefined || value === null || value === '') return DEFAULT_MAX_DOWNLOAD_BYTES;
	const mb = numberValue(value);
	if (typeof mb !== 'number' || !Number.isFinite(mb)) return { problem: `expected a number of MB, got ${shownValue(value)}` };
	if (mb < 1 || mb > MAX_MB) return { problem: `must be between 1 and ${MAX_MB} MB (got ${mb})` };
	return Math.floor(mb * MB);
}

/** Item i's Max Download Size in bytes, from the operation's Options; a bad value fails the item naming the field, before anything is sent. */
export function itemMaxDownloadBytes(ctx: IExecuteFunctions, i: number): number {
	const options = (ctx.getNodeParameter('options', i, {}) ?? {}) as IDataObject;
	const bytes = maxDownloadBytes(options[maxDownloadSizeOption.name]);
	if (typeof bytes !== 'number') throw invalid(ctx, i, maxDownloadSizeOption.displayName, bytes.problem);
	return bytes;
}
