/**
 * What the knowledge-file operations and the knowledge trigger share: the file
 * locator, the type each extension names, and the file item: the one shape of
 * a knowledge file in every node's output.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import { read } from '../transport';
import { positiveIdLocator } from '../descriptions';
import { numericId } from '../validation';
import { pick } from '../pick';

/** The allowed type each file extension names, for binaries that carry no useful type. */
export const EXTENSION_MIME_TYPES: Readonly<Record<string, string>> = {
	csv: 'text/csv',
	xml: 'application/xml',
	html: 'text/html',
	htm: 'text/html',
	pdf: 'application/pdf',
	rtf: 'application/rtf',
	doc: 'application/msword',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	ppt: 'application/vnd.ms-powerpoint',
	pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
	xls: 'application/vnd.ms-excel',
	xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** The file an operation acts on: picked from the chosen knowledge base's files, or entered as an id. */
export const knowledgeFileLocator = positiveIdLocator({
	displayName: 'File',
	name: 'fileId',
	description: 'The knowledge file, chosen from the knowledge base\'s files or given by its numeric ID',
	searchListMethod: 'searchKnowledgeFiles',
	listPlaceholder: 'Select a file…',
	idPlaceholder: 'e.g. 42',
	errorMessage: 'A knowledge file ID is a positive whole number',
});

export function fileIds(ctx: IExecuteFunctions, i: number): { knowledgeId: number; fileId: number } {
	return {
		knowledgeId: numericId(ctx, i, 'knowledgeId', 'Knowledge Base'),
		fileId: numericId(ctx, i, 'fileId', 'File'),
	};
}

/**
 * The fields every knowledge file item has, in every node (the knowledge
 * trigger, Get, Get Many, Download, Replace), simplified or raw, in the order a
 * person reads them: an expression written for one node's item works on the
 * others'. `originalName` is the name as uploaded (the service's `meta.originalName`;
 * its own `name` is a generated storage name), `size` and `mimeType` come from
 * `meta`, `usedByLanguageModel` says whether the service's language model uses
 * the content (false for `deleting`), `knowledgeId` and `knowledgeName` name the
 * file's knowledge base.
 */
export const FILE_ITEM_FIELDS = [
	'id',
	'originalName',
	'size',
	'mimeType',
	'status',
	'usedByLanguageModel',
	'knowledgeId',
	'knowledgeName',
	'createdAt',
	'updatedAt',
] as const;

/**
 * A service's file as the file item's fields only (the simplified item).
 * `base` is the knowledge base the file was listed under, for a file that does
 * not carry its own `knowledge`. A status the service is not known to use gets
 * no `usedByLanguageModel`.
 */
export function fileItem(file: IDataObject, base?: IDataObject): IDataObject {
	const meta = read.object(file.meta) ?? {};
	const knowledge = read.object(file.knowledge) ?? base;
	const used = file.status === 'active' ? true : file.status === 'deleting' ? false : undefined;
	return pick([
		['id', file.id],
		['originalName', meta.originalName],
		['size', meta.size],
		['mimeType', meta.mimetype],
		['status', file.status],
		['usedByLanguageModel', used],
		['knowledgeId', knowledge?.id ?? file.knowledgeId],
		['knowledgeName', knowledge?.name],
		['createdAt', file.createdAt],
		['updatedAt', file.updatedAt],
	]);
}

/**
 * A service's file as a raw item (Simplify off, and node versions 1 and 2): the
 * file item's fields first, then every field of the service's answer as it came
 * (its storage `name`, `path`, `meta`, `knowledge`, …), so workflows reading
 * those keep working.
 */
export function fileOutput(file: IDataObject, base?: IDataObject): IDataObject {
	return { ...fileItem(file, base), ...file };
}

/** The file item's fields of an output item (what Simplify keeps of a raw one). */
export function fileItemFields(json: IDataObject): IDataObject {
	return pick(FILE_ITEM_FIELDS.map((field) => [field, json[field]]));
}

/** A hint with the output when any file in it is being deleted. */
export function deletingHints(output: INodeExecutionData[]): NodeExecutionHint[] {
	const deleting = output.filter((item) => item.json.status === 'deleting' && item.json.usedByLanguageModel === false);
	if (deleting.length === 0) return [];
	const names = deleting
		.slice(0, 3)
		.map((item) => `"${String(item.json.originalName ?? item.json.id)}"`)
		.join(', ');
	const more = deleting.length > 3 ? ` and ${deleting.length - 3} more` : '';
	return [
		{
			message: `${deleting.length} file${deleting.length === 1 ? ' has' : 's have'} status "deleting" (${names}${more}): the service's language model does not use ${deleting.length === 1 ? 'its' : 'their'} content`,
			type: 'warning',
			location: 'outputPane',
		},
	];
}
