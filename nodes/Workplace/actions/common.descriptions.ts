import type { INodeProperties } from 'n8n-workflow';

/** The knowledge base an operation acts on: picked from a searchable list, or entered as an id. */
export const knowledgeBaseLocator: INodeProperties = {
	displayName: 'Knowledge Base',
	name: 'knowledgeId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The knowledge base, chosen from the list or given by its numeric ID',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a knowledge base…',
			typeOptions: {
				searchListMethod: 'searchKnowledgeBases',
				searchable: true,
			},
		},
		{
			displayName: 'ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 12',
			validation: [
				{
					type: 'regex',
					properties: {
						regex: '^[1-9][0-9]*$',
						errorMessage: 'A knowledge base ID is a positive whole number',
					},
				},
			],
		},
	],
};

/** Return All / Limit, shared by every list operation. */
export function returnAllOrLimit(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			default: 50,
			typeOptions: { minValue: 1 },
			displayOptions: { show: { returnAll: [false] } },
			description: 'Max number of results to return',
		},
	];
}
