import type { IDataObject } from 'n8n-workflow';

import { requiredString } from '../../../../shared/descriptions';
import type { OperationDefinition } from '../types';
import { invalid, oneOrMoreOf, requiredText } from '../../../../shared/validation';
import { simplifyKnowledgeBase } from '../simplify';

const LANGUAGES = ['en', 'th'] as const;

export const create: OperationDefinition = {
	value: 'create',
	name: 'Create',
	action: 'Create a knowledge base',
	description: 'Create a knowledge base, optionally with a fulfillment attached',
	simplify: simplifyKnowledgeBase,
	properties: [
		requiredString('Name', 'name', 'e.g. Employee Handbook', 'Name of the knowledge base, at most 255 characters'),
		{
			displayName: 'Source',
			name: 'source',
			type: 'options',
			default: 'internal',
			options: [
				{
					name: 'Internal',
					value: 'internal',
					description: 'Search the content of files uploaded to this knowledge base',
				},
				{
					name: 'External',
					value: 'external',
					description: 'Forward searches to a target endpoint of your own',
				},
			],
			description: 'Where searches of this knowledge base are answered',
		},
		{
			displayName: 'Target',
			name: 'target',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://search.example.com/api',
			displayOptions: { show: { source: ['external'] } },
			description: 'Search endpoint that receives the forwarded searches',
		},
		{
			displayName: 'Supported Languages',
			name: 'supportedLanguages',
			type: 'multiOptions',
			default: ['en'],
			required: true,
			options: [
				{ name: 'English', value: 'en' },
				{ name: 'Thai', value: 'th' },
			],
			description: 'Languages files are translated into; at least one',
		},
		{
			displayName: 'Create Fulfillment',
			name: 'createFulfillment',
			type: 'boolean',
			default: true,
			description: 'Whether to create a fulfillment and attach it to the new knowledge base',
		},
	],
	request(i) {
		const name = requiredText(this, i, 'name', 'Name', 255);
		const source = this.getNodeParameter('source', i) as string;
		if (source !== 'internal' && source !== 'external') {
			throw invalid(this, i, 'Source', `must be "internal" or "external", got "${String(source)}"`);
		}
		// target defaults to empty and only an external base needs it: left out otherwise, since a
		// service validating it when present (as a URL) would refuse an empty one.
		const body: IDataObject = {
			name,
			source,
			...(source === 'external' ? { target: requiredText(this, i, 'target', 'Target') } : {}),
			supportedLanguages: oneOrMoreOf(this, i, 'supportedLanguages', 'Supported Languages', LANGUAGES),
			createFulfillment: this.getNodeParameter('createFulfillment', i, true) as boolean,
		};
		if (typeof body.createFulfillment !== 'boolean') {
			throw invalid(this, i, 'Create Fulfillment', 'must be true or false');
		}
		return { api: 'knowledgeBase', method: 'POST', path: ['knowledge'], body };
	},
};
