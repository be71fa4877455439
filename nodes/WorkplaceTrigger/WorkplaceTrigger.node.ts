import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { credentialTest } from '../../shared/methods/credentialTest';
import { relayAnswers } from '../../shared/sendAndWait';
import { boundedEvents, screenReplays, signatureRefusal, signingSecret, type Refusal } from './callChecks';
import { eventsToItems, normaliseEvent } from './events';

type ServerResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

function answer(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
	res.writeHead(status, { 'content-type': 'application/json', ...headers });
	res.end(JSON.stringify({ message }));
}

/**
 * Receives the bot's webhook events: POST { "events": [ … ] }, signed by the
 * service in `X-Eko-Signature`. Answers 200 at once and starts one execution
 * with one item per event that passes the filter; an unsigned or wrongly
 * signed call is answered 401 and starts nothing.
 *
 * Version 2 normalises each event (sender, time, postback data, …) and keeps
 * it whole under `event`; version 1 passes the event's own fields as they came.
 * Both verify signatures (version 1's shared-secret options are gone: their
 * secret was a node parameter, saved in the workflow), refuse replayed and
 * stale events, and take at most MAX_EVENTS_PER_CALL events a call (callChecks.ts).
 */
export class WorkplaceTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Trigger',
		name: 'workplaceTrigger',
		icon: { light: 'file:../Workplace/workplace.svg', dark: 'file:../Workplace/workplace.dark.svg' },
		group: ['trigger'],
		version: [1, 2],
		defaultVersion: 2,
		subtitle: '={{"Events: " + $parameter["events"].join(", ")}}',
		description: 'Starts a workflow when the workplace bot receives events (postbacks, messages, joins)',
		defaults: { name: 'Workplace Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{
				name: 'workplaceBotApi',
				required: true,
				// n8n looks the test up on whichever node it finds first: both nodes carry it.
				testedBy: 'workplaceBotApiTest',
				// Hidden when signatures are not verified. `hide` rather than `show`: n8n's editor puts a
				// credential after the parameters its `show` names (here below Events); with `hide` it
				// stays at the top of the panel, where n8n's own triggers have it.
				displayOptions: { hide: { verifySignature: [false] } },
			},
		],
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
				displayName: 'Verify Signature',
				name: 'verifySignature',
				type: 'boolean',
				default: true,
				description:
					'Whether to accept only calls signed by the service: X-Eko-Signature must be the HMAC of the body with the credential\'s client secret (or its webhook secret, when set). Other calls are answered 401 and start nothing.',
			},
			{
				displayName:
					'Signatures are not checked: anyone who learns this webhook URL can start the workflow with events they make up. Each item says <code>verified: false</code>.',
				name: 'unverifiedNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { verifySignature: [false] } },
			},
			{
				displayName: 'Replay Window (Minutes)',
				name: 'replayWindowMinutes',
				type: 'number',
				default: 5,
				typeOptions: { minValue: 0 },
				description:
					"Refuses an event whose own timestamp is further than this from the n8n server's clock (either way, so clocks may drift a little), or that was already received within this time. 0 turns both checks off.",
			},
		],
	};

	// The service has no API to register a webhook address: it is entered in the
	// admin panel by hand, so there is nothing to create or delete remotely. Activation
	// still checks that a signature can be verified, so a trigger without its
	// credential fails when published instead of refusing every event.
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				if (this.getNodeParameter('verifySignature', true) as boolean) await signingSecret(this);
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	methods = { credentialTest };

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const res = this.getResponseObject();
		const refuse = ({ status, message, headers }: Refusal): IWebhookResponseData => {
			answer(res, status, message, headers);
			return { noWebhookResponse: true };
		};
		const verify = this.getNodeParameter('verifySignature', true) as boolean;
		if (verify) {
			const refusal = await signatureRefusal(this);
			if (refusal) return refuse(refusal);
		}

		const bounded = boundedEvents(this.getBodyData());
		if ('status' in bounded) return refuse(bounded);
		const { events } = bounded;

		// Replays are refused before anything acts on an event, answers to questions included.
		const windowMinutes = this.getNodeParameter('replayWindowMinutes', 5) as number;
		const screened = screenReplays(this, events, typeof windowMinutes === 'number' ? windowMinutes : 5);
		// Answers to Send and Wait questions go to their waiting executions, not to this workflow;
		// only from verified calls (an unverified tap could be anyone's).
		const forWorkflow = verify ? await relayAnswers(this, screened.events, (event) => normaliseEvent(event, true)) : screened.events;
		const wanted = this.getNodeParameter('events', ['*']) as string[];
		const items = eventsToItems(forWorkflow, wanted, { version: this.getNode().typeVersion, verified: verify });
		const webhookResponse: IDataObject = { received: events.length, accepted: items.length };
		// Said only when replay protection refused something, so the service's log shows why.
		if (screened.duplicate > 0) webhookResponse.duplicate = screened.duplicate;
		if (screened.stale > 0) webhookResponse.stale = screened.stale;
		// Nothing to run for: answer and start no execution.
		if (items.length === 0) return { webhookResponse };
		return { webhookResponse, workflowData: [items] };
	}
}
