import type { IDataObject } from 'n8n-workflow';

/** Keeps the fields that are there, in this order (an absent field is left out, not set to null). */
export function pick(entries: Array<[string, unknown]>): IDataObject {
	const out: IDataObject = {};
	for (const [name, value] of entries) if (value !== undefined) out[name] = value as IDataObject[string];
	return out;
}
