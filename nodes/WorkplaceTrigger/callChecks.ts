/**
 * What the Workplace Trigger checks of a call before any item is made, in the
 * order it checks it: the signature (before any work whose cost the caller
 * controls), the size and nesting of the events, then replays.
 */
import type { IDataObject, IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { botSigningSecret } from '../../shared/sendAndWait/keys';
import { MAX_EVENTS_PER_CALL, MAX_NESTING, nestedDeeperThan } from './bodyLimits';
import { eventTime, readEvents } from './events';
import { eventKey, freshness, seenEvents } from './replay';
import { SIGNATURE_HEADER, signatureDigest, verifySignature } from './signature';

/**
 * The key of `X-Eko-Signature`: the bot credential's webhook secret when set,
 * else its client secret, which the service's pages say signs the calls. Read from the credential only, so
 * no secret is ever a node parameter saved with the workflow.
 */
export async function signingSecret(context: IHookFunctions | IWebhookFunctions): Promise<string> {
	const secret = botSigningSecret(await context.getCredentials('workplaceBotApi'));
	if (secret !== '') return secret;
	throw new NodeOperationError(
		context.getNode(),
		'The Workplace Bot API credential has no client secret to verify the service\'s signature with',
	);
}

/** Why a call is refused before any item is made: status and message. */
export type Refusal = { status: number; message: string; headers?: Record<string, string> };

/**
 * The signature decision, made before anything whose cost the caller controls:
 * undefined when the call is proven signed, else a 401 (500 when the trigger has
 * no secret, 503 when its credential could not be read). A body that cannot even be read (a broken Content-Encoding) is not
 * proven signed either.
 */
export async function signatureRefusal(context: IWebhookFunctions): Promise<Refusal | undefined> {
	// Not thrown on: n8n would record a failed execution for every caller.
	const name = context.getNode().name;
	const noSecret: Refusal = { status: 500, message: 'The trigger cannot verify signatures: it has no Workplace Bot API credential with a client secret' };
	if (context.getNode().credentials?.workplaceBotApi === undefined) {
		context.logger.error(`Workplace Trigger "${name}" cannot verify signatures: no Workplace Bot API credential is selected`);
		return noSecret;
	}
	let secret: string;
	try {
		secret = botSigningSecret(await context.getCredentials('workplaceBotApi'));
	} catch (error) {
		// A credential is selected but could not be read (n8n's database unreachable, say): a passing
		// failure, told as such so the sender may try again, not as a missing secret.
		context.logger.error(`Workplace Trigger "${name}" could not read its Workplace Bot API credential: ${(error as Error).message}`);
		return { status: 503, message: 'The trigger could not read its Workplace Bot API credential to verify the signature; try again', headers: { 'retry-after': '5' } };
	}
	if (secret === '') {
		context.logger.error(`Workplace Trigger "${name}" cannot verify signatures: its Workplace Bot API credential has no client secret`);
		return noSecret;
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

/** The events of a call within the limits the trigger sets (count and nesting), or why not. */
export function boundedEvents(body: unknown): { events: IDataObject[] } | Refusal {
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
export interface ReplayCheck {
	events: IDataObject[];
	duplicate: number;
	stale: number;
}

/**
 * Refuses events outside the replay window (by their own timestamp) and events
 * already let through within it, by this trigger (its workflow and node) in
 * this n8n process; remembers the ones it lets through (replay.ts).
 */
export function screenReplays(context: IWebhookFunctions, events: IDataObject[], windowMinutes: number): ReplayCheck {
	if (!(windowMinutes > 0)) return { events, duplicate: 0, stale: 0 };
	const windowMs = windowMinutes * 60_000;
	const now = Date.now();
	const trigger = `${context.getWorkflow().id ?? ''}\u0000${context.getNode().name}`;
	const passed: IDataObject[] = [];
	let duplicate = 0;
	let stale = 0;
	for (const event of events) {
		if (freshness(eventTime(event.timestamp).timestampMs, now, windowMs) !== 'fresh') stale++;
		else if (!seenEvents.firstTime(trigger, eventKey(event), now, now + windowMs)) duplicate++;
		else passed.push(event);
	}
	return { events: passed, duplicate, stale };
}
