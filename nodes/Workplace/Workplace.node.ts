import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { describeResources } from './actions/resources';
import { sendAndWaitWebhook } from './actions/message/sendAndWait/webhook';
import { router } from './actions/router';
import { credentialTest, listSearch } from '../../shared/methods';

/**
 * Message → Send and Wait for Response: the waiting node's answer address,
 * `<waiting base>/<execution>/<node id>`, as n8n's own chat nodes declare it.
 * n8n serves a restart webhook only while an execution waits at this node and
 * registers nothing for it on activation, so there is no webhook lifecycle
 * (webhookMethods) to implement: the service never learns this address.
 */
const answerWebhook = (httpMethod: 'GET' | 'POST'): IWebhookDescription => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
});
const ANSWER_WEBHOOKS = [answerWebhook('GET'), answerWebhook('POST')];

export class Workplace implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace',
		name: 'workplace',
		icon: { light: 'file:workplace.svg', dark: 'file:workplace.dark.svg' },
		group: ['transform'],
		// 2: request settings in each operation's Options, parallel by default for requests safe to repeat.
		// 3: Simplify, on by default, for operations whose answer is large.
		version: [1, 2, 3],
		defaultVersion: 3,
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
		webhooks: ANSWER_WEBHOOKS,
		properties: describeResources(),
	};

	methods = { listSearch, credentialTest };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await sendAndWaitWebhook.call(this);
	}

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
