import { timingSafeEqual } from 'crypto';
import type {
	IDataObject,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { eventsToItems, readEvents } from './events';

/** Compares in constant time, so the answer's timing tells nothing about the secret. */
function sameSecret(given: string, expected: string): boolean {
	const a = Buffer.from(given, 'utf8');
	const b = Buffer.from(expected, 'utf8');
	// Compare equal-length buffers even when the lengths differ, then fail on length.
	const equal = timingSafeEqual(a.length === b.length ? a : b, b);
	return equal && a.length === b.length;
}

function firstValue(value: unknown): string | undefined {
	const v = Array.isArray(value) ? value[0] : value;
	return typeof v === 'string' ? v : undefined;
}

/**
 * Receives the bot's webhook events: POST { "events": [ … ] }. Answers 200 at
 * once and starts one execution with one item per event that passes the filter.
 */
// The rule expects webhookMethods that register the address remotely; the service has no such
// interface (the address is entered in its admin panel), so methods would be empty stubs.
// eslint-disable-next-line @n8n/community-nodes/webhook-lifecycle-complete
export class WorkplaceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Trigger',
		name: 'workplaceTrigger',
		icon: { light: 'file:../Workplace/workplace.svg', dark: 'file:../Workplace/workplace.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{"Events: " + $parameter["events"].join(", ")}}',
		description: 'Starts a workflow when the workplace bot receives events (postbacks, messages, joins)',
		defaults: { name: 'Workplace Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty, so n8n answers with webhook()'s { received, accepted }: left undefined,
				// n8n (2.x) defaults it to 'firstEntryJson' and sends that word as the body.
				responseData: '',
				path: 'webhook',
			},
		],
		properties: [
			{
				displayName:
					'Enter this node\'s webhook URL as the bot\'s webhook address in the service\'s admin panel (the service offers no API to register it)',
				name: 'notice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				default: ['*'],
				required: true,
				options: [
					{ name: 'All Events', value: '*', description: 'Every event, including types not listed here' },
					{ name: 'Join', value: 'join', description: 'The bot or a user joined a chat' },
					{ name: 'Message', value: 'message', description: 'A message was sent to the bot' },
					{ name: 'Postback', value: 'postback', description: 'A user triggered a postback action' },
				],
				description: 'Which event types start the workflow',
			},
			{
				displayName: 'Authentication',
				name: 'authentication',
				type: 'options',
				default: 'none',
				options: [
					{ name: 'None', value: 'none' },
					{ name: 'Shared Secret in Header', value: 'header' },
					{ name: 'Shared Secret in Query Parameter', value: 'query' },
				],
				description: 'Require a secret on every call; calls without it are answered 401 and start nothing',
			},
			{
				displayName: 'Header Name',
				name: 'secretHeader',
				type: 'string',
				default: 'X-Webhook-Secret',
				displayOptions: { show: { authentication: ['header'] } },
				description: 'Header that carries the secret',
			},
			{
				displayName: 'Query Parameter Name',
				name: 'secretQuery',
				type: 'string',
				default: 'secret',
				displayOptions: { show: { authentication: ['query'] } },
				description: 'Query parameter of the webhook URL that carries the secret',
			},
			{
				displayName: 'Secret',
				name: 'secret',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				required: true,
				displayOptions: { show: { authentication: ['header', 'query'] } },
				description: 'The shared secret the sender must present',
			},
		],
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const authentication = this.getNodeParameter('authentication', 'none') as string;
		if (authentication === 'header' || authentication === 'query') {
			const expected = this.getNodeParameter('secret', '') as string;
			const given =
				authentication === 'header'
					? firstValue(this.getHeaderData()[(this.getNodeParameter('secretHeader', '') as string).toLowerCase()])
					: firstValue((this.getQueryData() as IDataObject)[this.getNodeParameter('secretQuery', '') as string]);
			// An empty configured secret never matches: it would let anyone in.
			if (expected === '' || given === undefined || !sameSecret(given, expected)) {
				const res = this.getResponseObject();
				res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Shared-Secret' });
				res.end(JSON.stringify({ message: 'Authorization is required' }));
				return { noWebhookResponse: true };
			}
		}

		const events = readEvents(this.getBodyData());
		if (events === undefined) {
			const res = this.getResponseObject();
			res.writeHead(400, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ message: 'Expected a JSON body with an "events" array' }));
			return { noWebhookResponse: true };
		}

		const wanted = this.getNodeParameter('events', ['*']) as string[];
		const items: INodeExecutionData[] = eventsToItems(events, wanted);
		const webhookResponse = { received: events.length, accepted: items.length };
		// Nothing to run for: answer and start no execution.
		if (items.length === 0) return { webhookResponse };
		return { webhookResponse, workflowData: [items] };
	}
}
