import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { describeResources } from './actions/resources';
import { router, webhookRouter } from './actions/router';
import { credentialTest, listSearch } from '../../shared/methods';
import { sendAndWaitWebhooks } from '../../shared/sendAndWait';

export class Workplace implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace',
		name: 'workplace',
		icon: { light: 'file:workplace.svg', dark: 'file:workplace.dark.svg' },
		group: ['transform'],
		// 2: request settings in each operation's Options, parallel by default for requests safe to repeat.
		// 3: Simplify, on by default, for operations whose answer is large.
		// 4: how many requests go at once adapts to the service; Requests in Parallel is a ceiling.
		version: [1, 2, 3, 4],
		defaultVersion: 4,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Work with knowledge bases, task projects and the bot interface of the workplace service',
		defaults: { name: 'Workplace' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'workplaceKnowledgeBaseApi',
				required: true,
				testedBy: 'workplaceKnowledgeBaseApiTest',
				displayOptions: { show: { resource: ['knowledgeBase', 'knowledgeFile'] } },
			},
			{
				name: 'workplaceBotApi',
				required: true,
				testedBy: 'workplaceBotApiTest',
				displayOptions: { show: { resource: ['group', 'groupTopic', 'user', 'message'] } },
			},
			{
				name: 'workplaceTaskProjectsApi',
				required: true,
				testedBy: 'workplaceTaskProjectsApiTest',
				displayOptions: { show: { resource: ['task', 'topic'] } },
			},
		],
		// Where a waiting operation (Send and Wait) takes its answers; webhook() runs the chosen operation's.
		webhooks: sendAndWaitWebhooks,
		properties: describeResources(),
	};

	methods = { listSearch, credentialTest };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await webhookRouter.call(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
