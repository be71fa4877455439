/**
 * The keys Send and Wait signs with, each for one purpose. All are derived
 * from the bot credential's signing secret (its webhook secret when set, else
 * its client secret: the key of the service's own `X-Eko-Signature`), so only
 * n8n with that credential can make them, and no signature made for one
 * purpose is valid for another, nor is any of them a valid `X-Eko-Signature`
 * of the same bytes.
 */
import { createHmac, timingSafeEqual } from 'crypto';

export type KeyPurpose =
	/** The data of an answer button in the chat, made by the node that asks. */
	| 'postback'
	/** An answer the Workplace Trigger passes on to the waiting execution. */
	| 'relay'
	/** The confirmation page's token, which its form posts back. */
	| 'confirmation';

/**
 * The bot credential's signing secret: its webhook secret when set, else its
 * client secret, as for the service's own `X-Eko-Signature`; '' when neither.
 */
export function botSigningSecret(credentials: Record<string, unknown>): string {
	for (const value of [credentials.webhookSecret, credentials.clientSecret]) {
		if (typeof value === 'string' && value.trim() !== '') return value;
	}
	return '';
}

function purposeKey(secret: string, purpose: KeyPurpose): Buffer {
	return createHmac('sha256', secret).update(`n8n-nodes-workplace/send-and-wait/${purpose}`).digest();
}

/** The HMAC-SHA256 of `text` under the purpose's key, base64url, cut to `bytes` (postback data is kept short). */
export function sign(secret: string, purpose: KeyPurpose, text: string, bytes = 32): string {
	return createHmac('sha256', purposeKey(secret, purpose)).update(text).digest().subarray(0, bytes).toString('base64url');
}

/** Whether `given` is the signature of `text` for the purpose; never with an empty secret. */
export function signedBy(secret: string, purpose: KeyPurpose, text: string, given: unknown, bytes = 32): boolean {
	if (secret === '' || typeof given !== 'string') return false;
	const expected = Buffer.from(sign(secret, purpose, text, bytes));
	const actual = Buffer.from(given);
	return actual.length === expected.length && timingSafeEqual(actual, expected);
}
