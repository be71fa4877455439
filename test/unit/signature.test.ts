/**
 * X-Eko-Signature, an HMAC of the body keyed with the client secret, where the
 * public pages disagree on the hash (SHA-256 or SHA-1), the encoding (base64 or
 * hex), the key, the signed bytes (raw or JSON.stringify) and a sha1=/sha256=
 * prefix: every variant the public pages and clients describe verifies;
 * anything else does not.
 */
import { createHash, createHmac } from 'node:crypto';

import { signatureDigest, verifySignature, type SignatureCheck } from '../../nodes/WorkplaceTrigger/signature';

const SECRET = 'client-secret-5b1f0c';
const OTHER = 'client-secret-5b1f0d';
const parsed = { events: [{ type: 'message', replyToken: 'rt-1', source: { type: 'user', uid: 'u-1' }, message: { type: 'text', text: 'สวัสดี ✓' } }] };
const compact = Buffer.from(JSON.stringify(parsed), 'utf8');
// The same body as some proxy might rewrite it: indented. Only its re-serialisation matches `compact`.
const pretty = Buffer.from(JSON.stringify(parsed, null, 2), 'utf8');

const hmac = (algorithm: 'sha256' | 'sha1', bytes: Buffer, key = SECRET) => createHmac(algorithm, key).update(bytes).digest();
const b64 = (algorithm: 'sha256' | 'sha1', bytes: Buffer, key?: string) => hmac(algorithm, bytes, key).toString('base64');
const hex = (algorithm: 'sha256' | 'sha1', bytes: Buffer, key?: string) => hmac(algorithm, bytes, key).toString('hex');

type Row = [label: string, header: string | string[] | undefined, rawBody: Buffer | undefined, expected: SignatureCheck];

const valid = (algorithm: 'sha256' | 'sha1', signed: 'raw' | 'reserialised', encoding: 'base64' | 'hex'): SignatureCheck => ({
	valid: true,
	algorithm,
	signed,
	encoding,
});
const missing: SignatureCheck = { valid: false, reason: 'missing' };
const mismatch: SignatureCheck = { valid: false, reason: 'mismatch' };

const rows: Row[] = [
	// What the service is documented and reported to send.
	['SHA-256 of the raw bytes, base64 (sample, X3)', b64('sha256', compact), compact, valid('sha256', 'raw', 'base64')],
	['SHA-256 of the raw bytes, hex (WA table)', hex('sha256', compact), compact, valid('sha256', 'raw', 'hex')],
	['SHA-256 hex in upper case', hex('sha256', compact).toUpperCase(), compact, valid('sha256', 'raw', 'hex')],
	['sha256= prefix', `sha256=${b64('sha256', compact)}`, compact, valid('sha256', 'raw', 'base64')],
	['SHA256= prefix, spaces around', `  SHA256 = ${hex('sha256', compact)}  `, compact, valid('sha256', 'raw', 'hex')],
	['SHA-1 of the raw bytes, hex, sha1= prefix (UP)', `sha1=${hex('sha1', compact)}`, compact, valid('sha1', 'raw', 'hex')],
	['SHA-1 of the raw bytes, base64 (WA prose)', b64('sha1', compact), compact, valid('sha1', 'raw', 'base64')],
	// The raw bytes are not compact: only JSON.stringify(req.body) (the WA sample) was signed.
	['SHA-256 of the re-serialisation, base64', b64('sha256', compact), pretty, valid('sha256', 'reserialised', 'base64')],
	['SHA-256 of the re-serialisation, hex', hex('sha256', compact), pretty, valid('sha256', 'reserialised', 'hex')],
	['SHA-1 of the re-serialisation, hex', hex('sha1', compact), pretty, valid('sha1', 'reserialised', 'hex')],
	['the raw bytes signed, though they are not compact', b64('sha256', pretty), pretty, valid('sha256', 'raw', 'base64')],
	['no raw bytes: the re-serialisation', b64('sha256', compact), undefined, valid('sha256', 'reserialised', 'base64')],
	['a repeated header: the first value', [b64('sha256', compact), 'other'], compact, valid('sha256', 'raw', 'base64')],
	// Refused.
	['no header', undefined, compact, missing],
	['an empty header', '', compact, missing],
	['a prefix without a digest', 'sha256=', compact, missing],
	['spaces only', '   ', compact, missing],
	['another secret', b64('sha256', compact, OTHER), compact, mismatch],
	['another body', b64('sha256', Buffer.from('{"events":[]}')), compact, mismatch],
	['one character changed', b64('sha256', compact).replace(/^./, (c) => (c === 'A' ? 'B' : 'A')), compact, mismatch],
	['base64 is case-sensitive', b64('sha256', compact).toLowerCase(), compact, mismatch],
	['truncated', b64('sha256', compact).slice(0, 43), compact, mismatch],
	['the digest twice', b64('sha256', compact).repeat(2), compact, mismatch],
	['SHA-512', createHmac('sha512', SECRET).update(compact).digest('base64'), compact, mismatch],
	['a plain hash without the key', `sha256=${createHash('sha256').update(compact).digest('hex')}`, compact, mismatch],
	['the secret itself', SECRET, compact, mismatch],
	['another prefix', `md5=${b64('sha256', compact)}`, compact, mismatch],
];

describe('verifySignature', () => {
	it.each(rows)('%s', (_label, header, rawBody, expected) => {
		expect(verifySignature({ header, rawBody, parsedBody: parsed }, SECRET)).toEqual(expected);
	});

	it('verifies nothing with an empty secret, even a signature made with it', () => {
		expect(verifySignature({ header: b64('sha256', compact, ''), rawBody: compact, parsedBody: parsed }, '')).toEqual(mismatch);
	});

	it('has nothing to check against when there is neither raw body nor parsed body', () => {
		expect(verifySignature({ header: b64('sha256', compact), rawBody: undefined, parsedBody: undefined }, SECRET)).toEqual(mismatch);
	});

	it('signs the raw bytes as received, not as text: a changed byte of the body is refused', () => {
		const tampered = Buffer.from(compact.toString('utf8').replace('rt-1', 'rt-2'), 'utf8');
		expect(tampered.length).toBe(compact.length);
		expect(verifySignature({ header: b64('sha256', compact), rawBody: tampered, parsedBody: JSON.parse(tampered.toString()) }, SECRET)).toEqual(mismatch);
	});
});

describe('signatureDigest', () => {
	it.each([
		['abc=', 'abc='],
		[' sha256=abc= ', 'abc='],
		['sha1=ABCDEF', 'ABCDEF'],
		['Sha256 = x', 'x'],
		['sha256=', undefined],
		['', undefined],
		[undefined, undefined],
	])('%j → %j', (header, digest) => {
		expect(signatureDigest(header)).toBe(digest);
	});
});
