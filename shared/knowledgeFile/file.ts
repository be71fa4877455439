/**
 * What the knowledge-file operations and the knowledge trigger share: the file
 * locator, the type each extension names, and how a file becomes an output
 * item (with whether the service's language model uses it).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeExecutionHint } from 'n8n-workflow';

import { read } from '../transport';
import { positiveIdLocator } from '../descriptions';
import { numericId } from '../validation';

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
 * A file as output: the service's fields as they are, plus `usedByLanguageModel`
 * (false for `deleting`, whose content the language model does not get). A
 * status the service is not known to use gets no verdict.
 */
export function fileOutput(file: IDataObject): IDataObject {
	if (file.status === 'active') return { ...file, usedByLanguageModel: true };
	if (file.status === 'deleting') return { ...file, usedByLanguageModel: false };
	return { ...file };
}

/** A hint with the output when any file in it is being deleted. */
export function deletingHints(output: INodeExecutionData[]): NodeExecutionHint[] {
	const deleting = output.filter((item) => item.json.status === 'deleting' && item.json.usedByLanguageModel === false);
	if (deleting.length === 0) return [];
	const names = deleting
		.slice(0, 3)
		// Raw items keep the name as uploaded in meta; simplified ones in name.
		.map((item) => `"${String(read.object(item.json.meta)?.originalName ?? item.json.name ?? item.json.id)}"`)
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
