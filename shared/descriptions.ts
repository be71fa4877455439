import type { INodeProperties } from 'n8n-workflow';

import { POSITIVE_ID_PATTERN } from './positiveId';

/**
 * A resource locator for an object with a positive numeric id: picked from a
 * searchable list, or entered as an id checked by the one positive-id rule.
 */
export function positiveIdLocator(options: {
	displayName: string;
	name: string;
	description: string;
	searchListMethod: string;
	listPlaceholder: string;
	idPlaceholder: string;
	errorMessage: string;
}): INodeProperties {
	return {
		displayName: options.displayName,
		name: options.name,
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: options.description,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: options.listPlaceholder,
				typeOptions: { searchListMethod: options.searchListMethod, searchable: true },
			},
			{
				displayName: 'ID',
				name: 'id',
				type: 'string',
				placeholder: options.idPlaceholder,
				validation: [{ type: 'regex', properties: { regex: POSITIVE_ID_PATTERN, errorMessage: options.errorMessage } }],
			},
		],
	};
}

/** The knowledge base an operation acts on. */
export const knowledgeBaseLocator = positiveIdLocator({
	displayName: 'Knowledge Base',
	name: 'knowledgeId',
	description: 'The knowledge base, chosen from the list or given by its numeric ID',
	searchListMethod: 'searchKnowledgeBases',
	listPlaceholder: 'Select a knowledge base…',
	idPlaceholder: 'e.g. 12',
	errorMessage: 'A knowledge base ID is a positive whole number',
});

/** A required text parameter; `hint`, when given, is shown under it (e.g. where its value comes from). */
export function requiredString(displayName: string, name: string, placeholder: string, description: string, hint?: string): INodeProperties {
	return { displayName, name, type: 'string', default: '', required: true, placeholder, description, ...(hint ? { hint } : {}) };
}

/** An "Options" collection of optional settings. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return { displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, options };
}

/**
 * A download's "Put Output File in Field" (checked by outputBinaryField);
 * `what` says what the field receives, e.g. 'file'.
 */
export function outputFileProperty(what: string): INodeProperties {
	return {
		displayName: 'Put Output File in Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: `The name of the output binary field to put the ${what} in`,
	};
}
