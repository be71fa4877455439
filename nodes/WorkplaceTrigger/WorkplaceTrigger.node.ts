import type {
	IDataObject,
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { MAX_EVENTS_PER_CALL, MAX_NESTING, nestedDeeperThan } from './bodyLimits';
import { eventsToItems, eventTime, readEvents } from './events';
import { currentSeen, eventKey, freshness, remember, wasSeen } from './replay';
import { SIGNATURE_HEADER, signatureDigest, verifySignature } from './signature';

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

/** Why a call is refused before any item is made: status and message. */
type Refusal = { status: number; message: string; headers?: Record<string, string> };

/**
 * The signature decision, made before anything whose cost the caller controls:
 * undefined when the call is proven signed, else a 401 (500 when the trigger has
 * no secret). A body that cannot even be read (a broken Content-Encoding) is not
 * proven signed either.
 */
async function signatureRefusal(context: IWebhookFunctions): Promise<Refusal | undefined> {
	let secret: string;
	try {
		secret = await signingSecret(context);
	} catch (error) {
		// Not thrown on: n8n would record a failed execution for every caller.
		context.logger.error(`Workplace Trigger "${context.getNode().name}" cannot verify signatures: ${(error as Error).message}`);
		return { status: 500, message: 'The trigger cannot verify signatures: it has no Workplace Bot API credential with a client secret' };
	}
	const req = context.getRequestObject();
	const unauthorised = (message: string): Refusal => ({ status: 401, message, headers: { 'www-authenticate': 'X-Eko-Signature' } });
	if (signatureDigest(req.headers[SIGNATURE_HEADER]) === undefined) {
		context.logger.warn(`Workplace Trigger "${context.getNode().name}" refused a call: signature missing`);
		return unauthorised('Missing X-Eko-Signature');
	}
	try {
		// n8n reads the body's bytes only for content types it parses; read them for any other.
		if (req.rawBody === undefined && typeof req.readRawBody === 'function') await req.readRawBody();
	} catch {
		context.logger.warn(`Workplace Trigger "${context.getNode().name}" refused a call: its body could not be read to check the signature`);
		return unauthorised('Invalid X-Eko-Signature: the body could not be read');
	}
	const check = verifySignature({ header: req.headers[SIGNATURE_HEADER], rawBody: req.rawBody, parsedBody: context.getBodyData() }, secret);
	if (check.valid) return undefined;
	// Says why, never what was sent.
	context.logger.warn(`Workplace Trigger "${context.getNode().name}" refused a call: signature ${check.reason}`);
	return unauthorised(check.reason === 'missing' ? 'Missing X-Eko-Signature' : 'Invalid X-Eko-Signature');
}

/** The events of a call within the documented limits, or why not. */
function boundedEvents(body: unknown): { events: IDataObject[] } | Refusal {
	const events = readEvents(body);
	if (events === undefined) return { status: 400, message: 'Expected a JSON body with an "events" array' };
	if (events.length > MAX_EVENTS_PER_CALL) {
		return { status: 413, message: `At most ${MAX_EVENTS_PER_CALL} events per call are accepted; this call has ${events.length}` };
	}
	if (nestedDeeperThan(events, MAX_NESTING)) {
		return { status: 400, message: `Events nested more than ${MAX_NESTING} levels deep are not accepted` };
	}
	return { events };
}

/** What replay protection let through, and how many it refused. */
interface Screened {
	events: IDataObject[];
	duplicate: number;
	stale: number;
}

/**
 * Refuses events outside the replay window (by their own timestamp) and events
 * already received within it; remembers the ones let through in the node's
 * static data, which n8n saves with the workflow after the call.
 */
function screenReplays(context: IWebhookFunctions, events: IDataObject[], windowMinutes: number): Screened {
	if (!(windowMinutes > 0)) return { events, duplicate: 0, stale: 0 };
	const windowMs = windowMinutes * 60_000;
	const now = Date.now();
	const staticData = context.getWorkflowStaticData('node');
	const seen = currentSeen(staticData.seenEvents, now);
	const passed: IDataObject[] = [];
	const keys: string[] = [];
	let duplicate = 0;
	let stale = 0;
	for (const event of events) {
		if (freshness(eventTime(event.timestamp).timestampMs, now, windowMs) !== 'fresh') {
			stale++;
			continue;
		}
		const key = eventKey(event);
		if (wasSeen(seen, key) || keys.includes(key)) {
			duplicate++;
			continue;
		}
		keys.push(key);
		passed.push(event);
	}
	if (keys.length > 0 || Object.keys(seen).length !== Object.keys(staticData.seenEvents ?? {}).length) {
		staticData.seenEvents = remember(seen, keys, now + windowMs);
	}
	return { events: passed, duplicate, stale };
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

		const wanted = this.getNodeParameter('events', ['*']) as string[];
		const all = wanted.includes('*');
		const matching = events.filter((event) => all || wanted.includes(typeof event.type === 'string' ? event.type : ''));
		const windowMinutes = this.getNodeParameter('replayWindowMinutes', 5) as number;
		const screened = screenReplays(this, matching, typeof windowMinutes === 'number' ? windowMinutes : 5);
		const items = eventsToItems(screened.events, wanted, { version: this.getNode().typeVersion, verified: verify });
		const webhookResponse: IDataObject = { received: events.length, accepted: items.length };
		// Said only when replay protection refused something, so the service's log shows why.
		if (screened.duplicate > 0) webhookResponse.duplicate = screened.duplicate;
		if (screened.stale > 0) webhookResponse.stale = screened.stale;
		// Nothing to run for: answer and start no execution.
		if (items.length === 0) return { webhookResponse };
		return { webhookResponse, workflowData: [items] };
	}
}
