/**
 * The service's webhook signature, `X-Eko-Signature`: an HMAC of the body keyed
 * with the bot's client secret.
 * The public pages disagree on the hash, the encoding and the signed bytes, so
 * every documented variant is accepted, most likely first.
 */
import { createHmac, timingSafeEqual } from 'crypto';

export const SIGNATURE_HEADER = 'x-eko-signature';

export type SignatureCheck =
	| {
			valid: true;
			algorithm: 'sha256' | 'sha1';
			/** Which bytes were signed: as received, or the parsed body re-serialised compactly. */
			signed: 'raw' | 'reserialised';
			encoding: 'base64' | 'hex';
	  }
	| { valid: false; reason: 'missing' | 'mismatch' };

export interface SignedRequest {
	/** The header as Node.js hands it over (a string; an array only for repeated headers it cannot join). */
	header: string | string[] | undefined;
	/** The body's bytes as received, when n8n read them. */
	rawBody: Buffer | undefined;
	/** The body as n8n parsed it; undefined when it did not parse one. */
	parsedBody: unknown;
}

/** SHA-256 first (the sample, the example's length, live reports), SHA-1 after it (one line of prose). */
const ALGORITHMS = ['sha256', 'sha1'] as const;

/** The digest of a header value: trimmed, a leading `sha256=` or `sha1=` removed; undefined when empty. */
export function signatureDigest(header: SignedRequest['header']): string | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value !== 'string') return undefined;
	const digest = value
		.trim()
		.replace(/^sha(?:256|1)\s*=\s*/i, '')
		.trim();
	return digest === '' ? undefined : digest;
}

/**
 * Constant-time equality of two strings. Only the length is compared first: a
 * digest's length is public (28, 40, 44 or 64 characters), its content is not.
 */
function sameText(given: string, expected: string): boolean {
	const a = Buffer.from(given, 'utf8');
	const b = Buffer.from(expected, 'utf8');
	return a.length === b.length && timingSafeEqual(a, b);
}

/** The bytes the sender may have signed: the raw body, then the compact re-serialisation when it differs. */
function signedCandidates(request: SignedRequest): Array<{ signed: 'raw' | 'reserialised'; bytes: Buffer }> {
	const candidates: Array<{ signed: 'raw' | 'reserialised'; bytes: Buffer }> = [];
	if (request.rawBody !== undefined) candidates.push({ signed: 'raw', bytes: request.rawBody });
	if (request.parsedBody !== undefined) {
		let text: string | undefined;
		try {
			text = JSON.stringify(request.parsedBody) as string | undefined;
		} catch {
			// Nested too deep to write out again (the call stack ends first): no such body was signed this way.
			text = undefined;
		}
		if (text !== undefined) {
			const bytes = Buffer.from(text, 'utf8');
			if (request.rawBody === undefined || !bytes.equals(request.rawBody)) candidates.push({ signed: 'reserialised', bytes });
		}
	}
	return candidates;
}

/**
 * Checks `X-Eko-Signature` against HMAC-SHA256 then HMAC-SHA1 of the raw body,
 * then of `JSON.stringify(parsedBody)`, each as base64 and as hex (hex in any
 * case). An empty secret never verifies anything.
 */
export function verifySignature(request: SignedRequest, secret: string): SignatureCheck {
	const given = signatureDigest(request.header);
	if (given === undefined) return { valid: false, reason: 'missing' };
	if (secret === '') return { valid: false, reason: 'mismatch' };
	const givenLower = given.toLowerCase();
	const candidates = signedCandidates(request);
	for (const algorithm of ALGORITHMS) {
		for (const { signed, bytes } of candidates) {
			const digest = createHmac(algorithm, secret).update(bytes).digest();
			if (sameText(given, digest.toString('base64'))) return { valid: true, algorithm, signed, encoding: 'base64' };
			if (sameText(givenLower, digest.toString('hex'))) return { valid: true, algorithm, signed, encoding: 'hex' };
		}
	}
	return { valid: false, reason: 'mismatch' };
}
