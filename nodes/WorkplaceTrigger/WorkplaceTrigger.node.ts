import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { relayAnswers } from './answerRelay';
import { eventsToItems, readEvents } from './events';
import { SIGNATURE_HEADER, verifySignature } from './signature';

type ServerResponse = ReturnType<IWebhookFunctions['getResponseObject']>;

function answer(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
	res.writeHead(status, { 'content-type': 'application/json', ...headers });
	res.end(JSON.stringify({ message }));
}

/**
 * The key of `X-Eko-Signature`: the bot credential's webhook secret when set,
 * else its client secret (contradiction 3). Read from the credential only, so
 * no secret is ever a node parameter saved with the workflow.
 */
async function signingSecret(context: IHookFunctions | IWebhookFunctions): Promise<string> {
	const credentials = await context.getCredentials('workplaceBotApi');
	for (const value of [credentials.webhookSecret, credentials.clientSecret]) {
		if (typeof value === 'string' && value.trim() !== '') return value;
	}
	throw new NodeOperationError(
		context.getNode(),
		'The Workplace Bot API credential has no client secret to verify the service\'s signature with',
	);
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
 * secret was a node parameter, saved in the workflow).
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
				displayOptions: { show: { verifySignature: [true] } },
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
		],
	};

	// The document shows no way to register a webhook address: it is entered in the
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

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const res = this.getResponseObject();
		const verify = this.getNodeParameter('verifySignature', true) as boolean;
		if (verify) {
			let secret: string;
			try {
				secret = await signingSecret(this);
			} catch (error) {
				// Not thrown on: n8n would record a failed execution for every caller.
				this.logger.error(`Workplace Trigger "${this.getNode().name}" cannot verify signatures: ${(error as Error).message}`);
				answer(res, 500, 'The trigger cannot verify signatures: it has no Workplace Bot API credential with a client secret');
				return { noWebhookResponse: true };
			}
			const req = this.getRequestObject();
			// n8n reads the body's bytes only for content types it parses; read them for any other.
			if (req.rawBody === undefined && typeof req.readRawBody === 'function') await req.readRawBody();
			const check = verifySignature(
				{ header: req.headers[SIGNATURE_HEADER], rawBody: req.rawBody, parsedBody: this.getBodyData() },
				secret,
			);
			if (!check.valid) {
				// Says why, never what was sent.
				this.logger.warn(`Workplace Trigger "${this.getNode().name}" refused a call: signature ${check.reason}`);
				answer(res, 401, check.reason === 'missing' ? 'Missing X-Eko-Signature' : 'Invalid X-Eko-Signature', {
					'www-authenticate': 'X-Eko-Signature',
				});
				return { noWebhookResponse: true };
			}
		}

		const events = readEvents(this.getBodyData());
		if (events === undefined) {
			answer(res, 400, 'Expected a JSON body with an "events" array');
			return { noWebhookResponse: true };
		}

		// Answers to Send and Wait questions go to their waiting executions, not to this workflow.
		const forWorkflow = await relayAnswers(this, events, verify);
		const wanted = this.getNodeParameter('events', ['*']) as string[];
		const items = eventsToItems(forWorkflow, wanted, { version: this.getNode().typeVersion, verified: verify });
		const webhookResponse = { received: events.length, accepted: items.length };
		// Nothing to run for: answer and start no execution.
		if (items.length === 0) return { webhookResponse };
		return { webhookResponse, workflowData: [items] };
	}
}
