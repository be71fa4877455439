import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { OperationDefinition } from '../types';
import { invalid } from '../validation';
import { ActionProblem, buildAction, LABEL_MAX } from './action';

const show = (...type: string[]) => ({ show: { type } });

export const build: OperationDefinition = {
	value: 'build',
	name: 'Build',
	action: 'Build a message action',
	description: 'Build an action object (button, carousel item, quick reply or imagemap area) to put in a bot message; sends nothing',
	properties: [
		{
			displayName: 'Type',
			name: 'type',
			type: 'options',
			default: 'postback',
			options: [
				{ name: 'Library', value: 'library', description: 'Send the user to a Library document' },
				{ name: 'Message', value: 'message', description: 'Send a text as a message from the user' },
				{ name: 'Postback', value: 'postback', description: 'Deliver a postback event carrying data to the bot\'s webhook' },
				{ name: 'URI', value: 'uri', description: 'Open a URI' },
				{ name: 'Workflow', value: 'workflow', description: 'Present a workflow to the user' },
				{ name: 'Workflow Template', value: 'workflowTemplate', description: 'Present a workflow template to the user' },
				{ name: 'Workflows Page', value: 'workflows', description: 'Send the user to the Workflows page, optionally filtered by status' },
			],
			description: 'What happens when the user triggers the action',
		},
		{
			displayName: 'Used In',
			name: 'usedIn',
			type: 'options',
			default: 'button',
			options: [
				{ name: 'Button Template', value: 'button', description: 'A label is required' },
				{ name: 'Carousel Template', value: 'carousel', description: 'A label is required' },
				{ name: 'Imagemap', value: 'imagemap', description: 'A tappable area is required' },
				{ name: 'Other', value: 'other', description: 'Neither label nor area is required' },
				{ name: 'Quick Reply', value: 'quickReply', description: 'A label is required' },
			],
			description: 'Where the action will be placed; decides whether a label or an area is required',
		},
		{
			displayName: 'Label',
			name: 'label',
			type: 'string',
			default: '',
			placeholder: 'e.g. Acknowledge',
			description: `Text shown on the action, at most ${LABEL_MAX} characters. Required in button templates, carousel templates and quick replies; optional in imagemaps.`,
		},
		{
			displayName: 'Text',
			name: 'text',
			type: 'string',
			default: '',
			displayOptions: show('message'),
			description: 'Text sent as a message from the user (required)',
		},
		{
			displayName: 'Data',
			name: 'data',
			type: 'string',
			default: '',
			displayOptions: show('postback'),
			placeholder: 'e.g. action=ack&incident=4711',
			description: 'String returned in the postback event\'s data (required)',
		},
		{
			displayName: 'Text',
			name: 'postbackText',
			type: 'string',
			default: '',
			displayOptions: show('postback'),
			description: 'Optional text shown in the chat as sent by the user',
		},
		{
			displayName: 'Template ID',
			name: 'templateId',
			type: 'string',
			default: '',
			displayOptions: show('workflowTemplate'),
			description: 'ID of the workflow template (required)',
		},
		{
			displayName: 'Workflow ID',
			name: 'workflowId',
			type: 'string',
			default: '',
			displayOptions: show('workflow'),
			description: 'ID of the workflow (required)',
		},
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			default: '',
			displayOptions: show('workflows'),
			options: [
				{ name: 'Any', value: '' },
				{ name: 'Awaiting', value: 'awaiting' },
				{ name: 'Canceled', value: 'canceled' },
				{ name: 'Completed', value: 'completed' },
				{ name: 'Processing', value: 'processing' },
				{ name: 'Rejected', value: 'rejected' },
			],
			description: 'Show only workflows with this status',
		},
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			displayOptions: show('library'),
			description: 'Address of the Library document',
		},
		{
			displayName: 'Link URI',
			name: 'linkUri',
			type: 'string',
			default: '',
			displayOptions: show('uri'),
			placeholder: 'e.g. https://status.example.com/incidents/4711',
			description: 'URI to open (required)',
		},
		{
			displayName: 'Area X',
			name: 'areaX',
			type: 'number',
			default: 0,
			displayOptions: { show: { usedIn: ['imagemap'] } },
			description: 'Offset of the tappable area from the left edge, 0 or more',
		},
		{
			displayName: 'Area Y',
			name: 'areaY',
			type: 'number',
			default: 0,
			displayOptions: { show: { usedIn: ['imagemap'] } },
			description: 'Offset of the tappable area from the top, 0 or more',
		},
		{
			displayName: 'Area Width',
			name: 'areaWidth',
			type: 'number',
			default: 0,
			displayOptions: { show: { usedIn: ['imagemap'] } },
			description: 'Width of the tappable area, more than 0',
		},
		{
			displayName: 'Area Height',
			name: 'areaHeight',
			type: 'number',
			default: 0,
			displayOptions: { show: { usedIn: ['imagemap'] } },
			description: 'Height of the tappable area, more than 0',
		},
	],
	build(i) {
		const type = this.getNodeParameter('type', i) as string;
		const usedIn = this.getNodeParameter('usedIn', i) as string;
		const param = (name: string, fallback: unknown = '') => this.getNodeParameter(name, i, fallback) as unknown;
		try {
			const action: IDataObject = buildAction({
				type,
				usedIn,
				label: param('label'),
				text: type === 'postback' ? param('postbackText') : param('text'),
				data: param('data'),
				templateId: param('templateId'),
				workflowId: param('workflowId'),
				status: param('status'),
				url: param('url'),
				linkUri: param('linkUri'),
				area:
					usedIn === 'imagemap'
						? { x: param('areaX', 0), y: param('areaY', 0), width: param('areaWidth', 0), height: param('areaHeight', 0) }
						: undefined,
			});
			return [{ json: action }];
		} catch (error) {
			if (error instanceof ActionProblem) throw invalid(this, i, error.field, error.problem);
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
		}
	},
};
