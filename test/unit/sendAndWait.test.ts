/**
 * Send and Wait's pure parts: the resume URL on each n8n version, the postback
 * data of an answer in the chat and where the trigger may relay it, the
 * relayed answer's signature, the keys of each purpose, the page's token and
 * the cross-site check, the question's record, Limit Wait Time, button labels,
 * the answer form, and what the trigger makes of the waiting node's reply.
 */
import { createHmac } from 'crypto';

import { buildResumeUrlSuffix, generateUrlSignature, prepareUrlForSigning, validateUrlSignature } from 'n8n-core';

import { answerUrl } from '../../shared/sendAndWait/answerUrl';
import { readFormFields, readSubmission } from '../../shared/sendAndWait/form';
import { confirmPage, formPage } from '../../shared/sendAndWait/pages';
import { limitEnd, UNIT_MS } from '../../shared/sendAndWait/limitWaitTime';
import { TakenNow } from '../../shared/sendAndWait/takenNow';
import { botSigningSecret, sign, signedBy } from '../../shared/sendAndWait/keys';
import { labelProblem } from '../../shared/sendAndWait/labels';
import { confirmationToken, crossSite, ownOrigins, tokenMatches } from '../../shared/sendAndWait/confirmation';
import { answerFits, readRecord, recordKey, recordText } from '../../shared/sendAndWait/question';
import {
	answerPostbackData,
	mayAnswer,
	parseAnswerPostback,
	parseApprovers,
	postbackSigned,
	relayBody,
	relayTarget,
	RELAY_MAX_AGE_MS,
	verifyRelayedAnswer,
	type RelayedAnswer,
} from '../../shared/sendAndWait/chatAnswer';
import { CHAT_REPLIES, relayErrorOutcome, relayOutcome } from '../../shared/sendAndWait/relay';

const NODE_ID = '5f1c2b3a-0d4e-4f6a-9b8c-7d6e5f4a3b2c';
const INSTANCE_SECRET = 'n8n-instance-hmac-secret';

/** n8n's getSignedResumeUrl (1.104 to 2.41), made of n8n-core's own signature helpers. */
function signedResumeUrl(base: string, executionId: string) {
	return (query: Record<string, string>) => {
		const url = new URL(`${base}${buildResumeUrlSuffix(executionId, NODE_ID)}`);
		for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
		url.searchParams.set('signature', generateUrlSignature(prepareUrlForSigning(url), INSTANCE_SECRET));
		return url.toString();
	};
}

describe('answerUrl: the resume URL an answer button opens, by n8n version', () => {
	const hmac = (path: string) => generateUrlSignature(path, INSTANCE_SECRET);
	test.each([
		[
			'1.85.4: unsigned $execution.resumeUrl, node id appended to the path',
			{ resumeUrl: 'http://localhost:5678/webhook-waiting/12', nodeId: NODE_ID },
			`http://localhost:5678/webhook-waiting/12/${NODE_ID}?approved=true`,
		],
		[
			'1.85.4 under a path prefix and a trailing slash',
			{ resumeUrl: 'https://n8n.example/base/webhook-waiting/12/', nodeId: NODE_ID },
			`https://n8n.example/base/webhook-waiting/12/${NODE_ID}?approved=true`,
		],
		[
			'1.104 to 2.13: getSignedResumeUrl signs path and query',
			{ signedResumeUrl: signedResumeUrl('http://localhost:5678/webhook-waiting', '12'), resumeUrl: 'http://localhost:5678/webhook-waiting/12', nodeId: NODE_ID },
			`http://localhost:5678/webhook-waiting/12/${NODE_ID}?approved=true&signature=${hmac(`/webhook-waiting/12/${NODE_ID}?approved=true`)}`,
		],
		[
			'2.14 to 2.41: resumeUrl carries ?signature=<token>; getSignedResumeUrl still wins',
			{
				signedResumeUrl: signedResumeUrl('http://localhost:5678/webhook-waiting', '12'),
				resumeUrl: 'http://localhost:5678/webhook-waiting/12?signature=0123abcd',
				nodeId: NODE_ID,
			},
			`http://localhost:5678/webhook-waiting/12/${NODE_ID}?approved=true&signature=${hmac(`/webhook-waiting/12/${NODE_ID}?approved=true`)}`,
		],
		[
			'≥ 2.14 without getSignedResumeUrl: the token, then the node id after a slash, in the signature parameter',
			{ resumeUrl: 'http://localhost:5678/webhook-waiting/12?signature=0123abcd', nodeId: NODE_ID },
			`http://localhost:5678/webhook-waiting/12?signature=0123abcd%2F${NODE_ID}&approved=true`,
		],
	])('%s', (_name, sources, expected) => {
		expect(answerUrl(sources, { approved: 'true' })).toBe(expected);
	});

	test('the signed URL passes n8n-core\'s own check, and fails it once its query is changed', () => {
		const url = new URL(answerUrl({ signedResumeUrl: signedResumeUrl('http://localhost:5678/webhook-waiting', '77'), resumeUrl: '', nodeId: NODE_ID }, { approved: 'false' }));
		const signature = url.searchParams.get('signature') as string;
		expect(validateUrlSignature(signature, url, INSTANCE_SECRET)).toBe(true);
		url.searchParams.set('approved', 'true');
		expect(validateUrlSignature(signature, url, INSTANCE_SECRET)).toBe(false);
	});
});

describe('answers in the chat: postback data and relay target', () => {
	const resume = `http://localhost:5678/webhook-waiting/12/${NODE_ID}?answer=chat&signature=${'a'.repeat(64)}`;
	const SECRET = 'bot-webhook-secret';
	type Tapped = { choice: 'approve' | 'decline'; path: string; signature: string };
	test('the postback data carries the choice and the resume path and query, signed, and reads back', () => {
		const data = answerPostbackData('decline', resume, SECRET);
		const path = `/webhook-waiting/12/${NODE_ID}?answer=chat&signature=${'a'.repeat(64)}`;
		expect(data).toBe(`n8n-answer|decline|${path}|${sign(SECRET, 'postback', `decline|${path}`, 16)}`);
		// Short enough for any likely postback data limit (LINE's is 300), with a 22-character question id in the path too.
		expect(data.length + '&question='.length + 22).toBeLessThan(300);
		const tapped = parseAnswerPostback(data)!;
		expect(tapped).toEqual({ choice: 'decline', path, signature: expect.stringMatching(/^[\w-]{22}$/) });
		expect(postbackSigned(tapped, SECRET)).toBe(true);
	});
	test.each([
		['another choice', (t: Tapped) => ({ ...t, choice: 'approve' as const })],
		['another path', (t: Tapped) => ({ ...t, path: '/webhook/other/webhook?answer=chat' })],
		['no signature', (t: Tapped) => ({ ...t, signature: '' })],
	])('a button changed (%s) is not one the node made; nor is one made with another bot\'s secret', (_name, change) => {
		const tapped = parseAnswerPostback(answerPostbackData('decline', resume, SECRET))!;
		expect(postbackSigned(change(tapped), SECRET)).toBe(false);
		expect(postbackSigned(tapped, 'another-bot')).toBe(false);
	});
	test.each([['approve:4711'], ['n8n-answer|maybe|/x/1/2'], ['n8n-answer|approve|'], [42], [null], [undefined], [`n8n-answer|approve|/${'x'.repeat(3000)}`]])('%p is not an answer', (data) => {
		expect(parseAnswerPostback(data)).toBeUndefined();
	});

	const OWN = { webhookUrl: 'http://localhost:5678/webhook/abc/webhook', waitingBaseUrl: 'http://localhost:5678/webhook-waiting' };
	test.each([
		['/webhook-waiting/12/node-1?answer=chat', 'http://localhost:5678/webhook-waiting/12/node-1?answer=chat'],
		['/base/webhook-waiting/12/node-1?answer=chat&signature=ab', 'http://localhost:5678/base/webhook-waiting/12/node-1?answer=chat&signature=ab'],
	])('relays %s to its own instance', (path, expected) => {
		const base = path.startsWith('/base/') ? { ...OWN, waitingBaseUrl: 'http://localhost:5678/base/webhook-waiting/' } : OWN;
		expect(relayTarget(path, base)?.toString()).toBe(expected);
	});
	test.each([
		['/webhook/abc/webhook'],
		['/webhook-waiting/12/node-1?approved=true'],
		['//evil.example/webhook-waiting/12/node-1?answer=chat'],
		['http://evil.example/webhook-waiting/12/node-1?answer=chat'],
		['https://localhost:5678/webhook-waiting/12/node-1?answer=chat'],
		['/\\evil.example/12/node-1?answer=chat'],
		['webhook-waiting/12/node-1?answer=chat'],
		['/only-one?answer=chat'],
		['/a/../../etc/12/x y'],
		['//@evil.example/12/node-1?answer=chat'],
		// Signed or not, nothing but a waiting node's address: not a production webhook, a REST path, a longer or shorter path.
		['/webhook/other-workflow/webhook?answer=chat'],
		['/webhook/other-workflow?answer=chat'],
		['/rest/workflows/run?answer=chat'],
		['/webhook-waiting/12?answer=chat'],
		['/webhook-waiting/12/node-1/more?answer=chat'],
		['/webhook-waiting/../rest?answer=chat'],
		['/webhook-waiting-other/12/node-1?answer=chat'],
	])('refuses %s: another address, or not a chat answer\'s', (path) => {
		expect(relayTarget(path, OWN)).toBeUndefined();
	});
	test('refuses everything when the trigger\'s own URL is unknown', () => {
		expect(relayTarget('/webhook-waiting/12/node-1?answer=chat', { webhookUrl: '', waitingBaseUrl: '' })).toBeUndefined();
		expect(relayTarget('/webhook-waiting/12/node-1?answer=chat', { ...OWN, waitingBaseUrl: '' })).toBeUndefined();
	});
});

describe('relayed answers: vouched for with the bot credential\'s secret', () => {
	const SECRET = 'bot-webhook-secret';
	const now = Date.UTC(2026, 10, 25, 12);
	const answer: RelayedAnswer = {
		choice: 'approve',
		path: `/webhook-waiting/12/${NODE_ID}?answer=chat&signature=abc`,
		userId: 'u-approver',
		username: 'nattaya',
		eventTime: '2026-11-25T11:59:58.000Z',
		relayedAt: now - 1000,
	};
	const at = `/webhook-waiting/12/${NODE_ID}`;
	test('a signed, fresh answer for this execution and node is accepted', () => {
		expect(verifyRelayedAnswer(relayBody(answer, SECRET), SECRET, at, now)).toEqual({ answer });
		// JSON round trip (as n8n parses the body) keeps it valid.
		expect(verifyRelayedAnswer(JSON.parse(JSON.stringify(relayBody(answer, SECRET))), SECRET, at, now)).toEqual({ answer });
	});
	test.each([
		['another secret', relayBody(answer, 'other-secret'), at, now, 'the answer\'s signature does not match'],
		['a changed choice', { ...relayBody(answer, SECRET), answer: { ...answer, choice: 'decline' } }, at, now, 'the answer\'s signature does not match'],
		['a changed user', { ...relayBody(answer, SECRET), answer: { ...answer, userId: 'u-stranger' } }, at, now, 'the answer\'s signature does not match'],
		['too old', relayBody(answer, SECRET), at, now + RELAY_MAX_AGE_MS + 2000, 'the answer is too old'],
		['another execution', relayBody(answer, SECRET), `/webhook-waiting/13/${NODE_ID}`, now, 'the answer is for another question'],
		['another node', relayBody(answer, SECRET), '/webhook-waiting/12/other-node', now, 'the answer is for another question'],
		['no signature', { answer }, at, now, 'no answer in the body'],
		['a link\'s form post', { confirm: 'approve' }, at, now, 'no answer in the body'],
		// The service's own signature of the same bytes (hex and base64) is not the relay's.
		['an X-Eko-Signature of the answer', { answer, signature: createHmac('sha256', SECRET).update(JSON.stringify(answer)).digest('hex') }, at, now, 'the answer\'s signature does not match'],
		['an X-Eko-Signature, base64', { answer, signature: createHmac('sha256', SECRET).update(JSON.stringify(answer)).digest('base64') }, at, now, 'the answer\'s signature does not match'],
		// Signed right, and still refused: each field's type is checked after the signature.
		['a user id given as a list', relayBody({ ...answer, userId: ['u-approver'] as unknown as string }, SECRET), at, now, 'the answer is not well formed'],
		['a user id given as an object', relayBody({ ...answer, userId: { toString: 'u-approver' } as unknown as string }, SECRET), at, now, 'the answer is not well formed'],
		['a choice outside the two', relayBody({ ...answer, choice: 'constructor' as 'approve' }, SECRET), at, now, 'the answer is not well formed'],
		['a field more', relayBody({ ...answer, approved: true } as unknown as RelayedAnswer, SECRET), at, now, 'the answer is not well formed'],
		['a time that is no number', relayBody({ ...answer, relayedAt: 'now' as unknown as number }, SECRET), at, now, 'the answer is not well formed'],
	])('refused: %s', (_name, body, path, time, problem) => {
		expect(verifyRelayedAnswer(body, SECRET, path, time)).toEqual({ problem });
	});
	test('an empty secret vouches for nothing', () => {
		expect(verifyRelayedAnswer(relayBody(answer, ''), '', at, now)).toEqual({ problem: 'no secret to check the answer with' });
	});
	test('the signing secret is the webhook secret when set, else the client secret', () => {
		expect(botSigningSecret({ clientSecret: 'c', webhookSecret: 'w' })).toBe('w');
		expect(botSigningSecret({ clientSecret: 'c', webhookSecret: ' ' })).toBe('c');
		expect(botSigningSecret({})).toBe('');
	});
	test('approvers: anyone when none are named, else only those named', () => {
		expect(parseApprovers(' 1001, 1002 1003,,')).toEqual(['1001', '1002', '1003']);
		expect(mayAnswer([], 'anyone')).toBe(true);
		expect(mayAnswer(['1001'], 1001)).toBe(true);
		expect(mayAnswer(['1001'], '1002')).toBe(false);
		expect(mayAnswer(['1001'], null)).toBe(false);
		expect(mayAnswer(['1001'], ['1001'])).toBe(false);
	});
});

describe('what the trigger tells the person, by the waiting node\'s reply', () => {
	test.each([
		[200, { outcome: 'answered' }, 'answered'],
		[403, { outcome: 'notAllowed' }, 'notAllowed'],
		[403, { outcome: 'refused' }, 'failed'],
		[409, { outcome: 'alreadyAnswered' }, 'alreadyAnswered'],
		[410, { outcome: 'expired' }, 'expired'],
		[200, { outcome: 'alreadyAnswered' }, 'closed'],
		// n8n's own "no action required" page once the execution has finished.
		[200, '<html>No action required</html>', 'closed'],
		[404, { message: 'not found' }, 'closed'],
		[409, { message: 'running already' }, 'closed'],
		[410, { outcome: 'closed' }, 'closed'],
		[410, { outcome: 'constructor' }, 'failed'],
		[200, { outcome: '__proto__' }, 'closed'],
		[500, {}, 'failed'],
		// n8n 2.x when another process resumed the execution first.
		[500, { code: 0, message: 'Execution is already being resumed by another process' }, 'failed'],
	])('%i %p → %s', (status, body, outcome) => {
		expect(relayOutcome(status, body)).toBe(outcome);
		const reply = outcome === 'answered' ? CHAT_REPLIES.answered('approve') : CHAT_REPLIES[outcome as Exclude<ReturnType<typeof relayOutcome>, 'answered'>];
		expect(typeof reply).toBe('string');
	});
});

describe('a relay that threw: failed only when it never reached n8n, else it may have counted', () => {
	const withCode = (code: string) => Object.assign(new Error(code), { code });
	test.each([
		[withCode('ECONNREFUSED'), 'failed'],
		[withCode('ENOTFOUND'), 'failed'],
		[Object.assign(new Error('fetch failed'), { cause: withCode('ECONNREFUSED') }), 'failed'],
		[withCode('ECONNABORTED'), 'uncertain'],
		[withCode('ETIMEDOUT'), 'uncertain'],
		[withCode('ECONNRESET'), 'uncertain'],
		[new Error('timeout of 15000ms exceeded'), 'uncertain'],
		[undefined, 'uncertain'],
	])('%p → %s', (error, outcome) => {
		expect(relayErrorOutcome(error)).toBe(outcome);
	});
});

describe('answers taken now, in one process: only the first for a question resumes', () => {
	test('a key is taken once; another key is free; after keepMs it is free again', () => {
		const taken = new TakenNow(10, 1000);
		expect(taken.take('1/node/q', 0)).toBe(true);
		expect(taken.take('1/node/q', 10)).toBe(false);
		expect(taken.take('1/node/q', 999)).toBe(false);
		expect(taken.take('2/node/q', 10)).toBe(true);
		expect(taken.take('1/other/q', 10)).toBe(true);
		expect(taken.take('1/node/q', 1000)).toBe(true);
	});
	test('bounded: the oldest entries are dropped first, expired ones whenever one is taken', () => {
		const taken = new TakenNow(3, 1000);
		for (const key of ['a', 'b', 'c', 'd']) expect(taken.take(key, 0)).toBe(true);
		expect(taken.size).toBe(3);
		expect(taken.take('a', 0)).toBe(true);
		expect(taken.take('d', 0)).toBe(false);
		expect(taken.take('e', 2000)).toBe(true);
		expect(taken.size).toBe(1);
	});
});

describe('the question\'s record with the execution, and whether an answer fits it', () => {
	const now = Date.UTC(2026, 10, 25, 12);
	const id = 'tHuQmRoM6d7N5ru0_UgTsg';
	test('the record reads back; the key is a custom data key (letters, digits, underscores, at most 50)', () => {
		expect(readRecord(recordText({ id }))).toEqual({ id });
		expect(readRecord(recordText({ id, endsAt: now }))).toEqual({ id, endsAt: now });
		for (const nodeId of [NODE_ID, 'workplace-node', 'a node with spaces', '__proto__']) expect(recordKey(nodeId)).toMatch(/^\w{1,50}$/);
		expect(recordKey('a')).not.toBe(recordKey('b'));
	});
	test.each([[undefined], [''], ['x.1'], [`${id}.soon`], [`${id}`], [42], [{ id }]])('%p is no record', (text) => {
		expect(readRecord(text)).toBeUndefined();
	});
	test.each([
		[{ id }, id, now, 'open'],
		[{ id, endsAt: now + 1 }, id, now, 'open'],
		[{ id, endsAt: now }, id, now, 'expired'],
		[{ id, endsAt: now - 60_000 }, id, now, 'expired'],
		// An earlier question's link, a link without a question, a question nobody recorded.
		[{ id }, 'AAAAAAAAAAAAAAAAAAAAAA', now, 'closed'],
		[{ id }, undefined, now, 'closed'],
		[{ id }, [id], now, 'closed'],
		[undefined, id, now, 'closed'],
	])('recorded %p, answer for %p → %s', (open, asked, at, fit) => {
		expect(answerFits(open, asked, at)).toBe(fit);
	});
});

describe('keys: one per purpose, none a valid X-Eko-Signature of the same bytes', () => {
	const SECRET = 'bot-client-secret';
	const text = '{"choice":"approve"}';
	test('the same bytes sign differently for each purpose and for the service', () => {
		const signatures = (['postback', 'relay', 'confirmation'] as const).map((purpose) => sign(SECRET, purpose, text));
		const eko = createHmac('sha256', SECRET).update(text).digest();
		expect(new Set([...signatures, eko.toString('base64url'), eko.toString('hex'), eko.toString('base64')]).size).toBe(6);
		expect(signedBy(SECRET, 'relay', text, signatures[1])).toBe(true);
		expect(signedBy(SECRET, 'confirmation', text, signatures[1])).toBe(false);
		expect(signedBy('', 'relay', text, sign('', 'relay', text))).toBe(false);
	});
	test('the signing secret is the webhook secret when set, else the client secret', () => {
		expect(botSigningSecret({ clientSecret: 'c', webhookSecret: 'w' })).toBe('w');
		expect(botSigningSecret({ clientSecret: 'c', webhookSecret: ' ' })).toBe('c');
		expect(botSigningSecret({})).toBe('');
	});
});

describe('the confirmation page\'s token, and requests from another site', () => {
	const bound = { executionId: '12', nodeId: NODE_ID, questionId: 'q1', answer: 'approve' as const };
	test('a token answers one question one way', () => {
		const token = confirmationToken('s', bound);
		expect(tokenMatches('s', bound, token)).toBe(true);
		for (const other of [{ ...bound, answer: 'decline' as const }, { ...bound, questionId: 'q2' }, { ...bound, executionId: '13' }, { ...bound, nodeId: 'other' }]) {
			expect(tokenMatches('s', other, token)).toBe(false);
		}
		expect(tokenMatches('other secret', bound, token)).toBe(false);
		expect(tokenMatches('s', bound, [token])).toBe(false);
	});
	const origins = ownOrigins('https://n8n.example/webhook-waiting/12', { host: 'internal:5678', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'n8n.example' });
	test('the own origins: the resume URL\'s, and the Host as the proxy passed it on', () => {
		expect(origins).toEqual(['https://n8n.example', 'https://n8n.example']);
		expect(ownOrigins('', { host: 'localhost:5678' })).toEqual(['http://localhost:5678', 'https://localhost:5678']);
	});
	test.each([
		['a form post from the page', { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', origin: 'https://n8n.example' }, false, undefined],
		['a program without browser headers', {}, false, undefined],
		['a program\'s fetch (Node sends Sec-Fetch-Mode: cors alone)', { 'sec-fetch-mode': 'cors' }, false, undefined],
		['another site\'s form post', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', origin: 'https://evil.example' }, false, 'a cross-site navigate request'],
		['the page\'s own post with Origin: null (a browser sends it so under Referrer-Policy no-referrer)', { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'navigate', origin: 'null' }, false, undefined],
		['another site\'s no-cors post, text/plain', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }, false, 'a cross-site no-cors request'],
		['a sibling subdomain\'s post', { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' }, false, 'a same-site navigate request'],
		['a sandboxed page\'s post (Origin: null)', { origin: 'null' }, false, 'a request from null'],
		['an old browser\'s cross-site post (Origin only)', { origin: 'https://evil.example' }, false, 'a request from https://evil.example'],
		['a link opened from a web chat', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' }, true, undefined],
		['a link opened from an app or typed', { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }, true, undefined],
		['another site\'s script reading the page', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors', origin: 'https://evil.example' }, true, 'a cross-site cors request'],
		['an old browser\'s script of another site reading the page (Origin only)', { origin: 'https://evil.example' }, true, 'a request from https://evil.example'],
		['another site\'s image or frame fetch', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' }, true, 'a cross-site no-cors request'],
	])('%s', (_name, headers, navigation, refusal) => {
		expect(crossSite(headers, origins, navigation)).toBe(refusal);
	});
});

describe('button labels', () => {
	test.each([
		['Approve', undefined],
		['อนุมัติ', undefined],
		['👍 Ship it', undefined],
		['Approve\u202E', 'must not contain bidirectional control characters (they change how the label reads)'],
		['\u2067enilceD\u2069', 'must not contain bidirectional control characters (they change how the label reads)'],
		['\u200F', 'must not contain bidirectional control characters (they change how the label reads)'],
		['\u200B\u200C\u200D\uFEFF', 'must show something: it has only spaces or invisible characters'],
		['\u3000 \u00A0', 'must show something: it has only spaces or invisible characters'],
		['x'.repeat(21), 'must be at most 20 characters (got 21)'],
	])('%p → %p', (label, problem) => {
		expect(labelProblem(label, 20)).toBe(problem);
	});
});

describe('Limit Wait Time', () => {
	const now = Date.UTC(2026, 10, 25, 12);
	test.each([
		[undefined, {}],
		[{}, {}],
		[{ limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' }, { endsAt: now + 45 * 60_000 }],
		[{ limitType: 'afterTimeInterval', resumeAmount: 1.5, resumeUnit: 'hours' }, { endsAt: now + 90 * 60_000 }],
		[{ limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'days' }, { endsAt: now + 2 * 86_400_000 }],
		[{ limitType: 'afterTimeInterval', resumeAmount: '3', resumeUnit: 'minutes' }, { endsAt: now + 3 * 60_000 }],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: '2026-11-26T08:00:00.000Z' }, { endsAt: Date.parse('2026-11-26T08:00:00.000Z') }],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: new Date('2026-11-26T08:00:00.000Z') }, { endsAt: Date.parse('2026-11-26T08:00:00.000Z') }],
		[{ limitType: 'afterTimeInterval', resumeAmount: 0, resumeUnit: 'hours' }, { problem: 'Amount must be a number above 0, got 0' }],
		[{ limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'weeks' }, { problem: 'Unit must be minutes, hours or days, got "weeks"' }],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: 'soon' }, { problem: 'Max Date and Time must be a date, got "soon"' }],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' }, { problem: 'Max Date and Time is in the past (2020-01-01T00:00:00.000Z)' }],
	])('%p → %p', (limit, expected) => {
		expect(limitEnd(limit, now)).toEqual(expected);
	});
	// What an expression can hand in: inherited names, huge amounts, dates n8n cannot wait for (issue 30, item 6).
	const beyond = 'ends the wait on or after 3000-01-01T00:00:00.000Z, which n8n reads as waiting indefinitely; leave Limit Wait Time off for that';
	test.each<[unknown, string]>([
		...['constructor', 'valueOf', 'toString', '__proto__', 'hasOwnProperty'].map((unit): [unknown, string] => [{ resumeAmount: 1, resumeUnit: unit }, `Unit must be minutes, hours or days, got "${unit}"`]),
		[{ resumeAmount: 1, resumeUnit: ['minutes'] }, 'Unit must be minutes, hours or days, got ["minutes"]'],
		[{ resumeAmount: 1e20, resumeUnit: 'minutes' }, `Amount ${beyond}`],
		[{ resumeAmount: Infinity, resumeUnit: 'minutes' }, 'Amount must be a number above 0, got null'],
		[{ resumeAmount: NaN, resumeUnit: 'minutes' }, 'Amount must be a number above 0, got null'],
		[{ resumeAmount: '1e400', resumeUnit: 'days' }, 'Amount must be a number above 0, got "1e400"'],
		[{ resumeAmount: { valueOf: 5 }, resumeUnit: 'days' }, 'Amount must be a number above 0, got {"valueOf":5}'],
		[{ limitType: 'constructor', resumeAmount: 1 }, 'Limit Type must be After Time Interval or At Specified Time, got "constructor"'],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: '3000-01-01T00:00:00Z' }, `Max Date and Time ${beyond}`],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: 8.64e15 }, `Max Date and Time ${beyond}`],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: 9e15 }, 'Max Date and Time must be a date, got 9000000000000000'],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: ['2026-12-01'] }, 'Max Date and Time must be a date, got ["2026-12-01"]'],
	])('refused: %p', (limit, problem) => {
		expect(limitEnd(limit as never, now)).toEqual({ problem });
	});
	test('the unit table has own entries only', () => {
		expect(Object.keys(UNIT_MS)).toEqual(['minutes', 'hours', 'days']);
	});
});

describe('the answer form', () => {
	const fields = readFormFields([
		{ fieldLabel: 'Name', fieldType: 'text', requiredField: true },
		{ fieldLabel: 'Days', fieldType: 'number' },
		{ fieldLabel: 'Email', fieldType: 'email' },
		{ fieldLabel: 'From', fieldType: 'date', requiredField: true },
		{ fieldLabel: 'Team', fieldType: 'dropdown', fieldOptions: { values: [{ option: 'Ops' }, { option: 'Dev' }] } },
		{ fieldLabel: 'Needs', fieldType: 'checkbox', fieldOptions: { values: [{ option: 'Laptop' }, { option: 'Badge' }] } },
		{ fieldLabel: 'Notes', fieldType: 'textarea' },
	]);
	if (!('fields' in fields)) throw new Error('fields expected');
	test('a complete submission becomes data keyed by label, typed', () => {
		const body = { 'field-0': 'Ann', 'field-1': '3', 'field-2': 'ann@example.com', 'field-3': '2026-12-01', 'field-4': 'Ops', 'field-5': ['Laptop', 'Badge'], 'field-6': 'line 1\r\nline 2' };
		expect(readSubmission(fields.fields, body)).toEqual({
			data: { Name: 'Ann', Days: 3, Email: 'ann@example.com', From: '2026-12-01', Team: 'Ops', Needs: ['Laptop', 'Badge'], Notes: 'line 1\nline 2' },
		});
	});
	test('missing required fields and bad values are named by label', () => {
		const body = { 'field-0': ' ', 'field-1': 'three', 'field-2': 'not-an-email', 'field-4': 'QA', 'field-5': 'Car' };
		expect(readSubmission(fields.fields, body)).toEqual({
			problems: { Name: 'This field is required', Days: 'Enter a number', Email: 'Enter an email address', From: 'This field is required', Team: 'Choose one of the options', Needs: 'Choose among the options' },
		});
	});
	test('labels that are names of an object\'s own functions key the data and the problems like any other', () => {
		const tricky = readFormFields([{ fieldLabel: 'toString', requiredField: true }, { fieldLabel: 'valueOf', fieldType: 'number' }, { fieldLabel: 'hasOwnProperty' }]);
		if (!('fields' in tricky)) throw new Error('fields expected');
		expect(readSubmission(tricky.fields, { 'field-0': '', 'field-1': 'x' })).toEqual({ problems: { toString: 'This field is required', valueOf: 'Enter a number' } });
		const ok = readSubmission(tricky.fields, { 'field-0': 'a', 'field-1': '2', 'field-2': 'c' });
		expect(ok).toEqual({ data: { toString: 'a', valueOf: 2, hasOwnProperty: 'c' } });
		expect(Object.getPrototypeOf((ok as { data: object }).data)).toBe(Object.prototype);
		// A body's inherited names are not values sent.
		expect(readSubmission(tricky.fields, Object.create({ 'field-0': 'inherited' }))).toEqual({ problems: { toString: 'This field is required' } });
	});
	test('answers have size caps: a textarea 20,000 characters, any other field 1,000; one value per field', () => {
		const capped = readFormFields([{ fieldLabel: 'Notes', fieldType: 'textarea' }, { fieldLabel: 'Name' }]);
		if (!('fields' in capped)) throw new Error('fields expected');
		expect(readSubmission(capped.fields, { 'field-0': 'x'.repeat(20_000), 'field-1': 'y'.repeat(1_000) })).toEqual({ data: { Notes: 'x'.repeat(20_000), Name: 'y'.repeat(1_000) } });
		expect(readSubmission(capped.fields, { 'field-0': 'x'.repeat(8 * 1024 * 1024), 'field-1': 'y'.repeat(1_001) })).toEqual({ problems: { Notes: 'At most 20,000 characters', Name: 'At most 1,000 characters' } });
		expect(readSubmission(capped.fields, { 'field-1': ['a', 'b'] })).toEqual({ problems: { Name: 'Enter one value' } });
	});
	test.each([
		[[{ fieldLabel: '__proto__' }], 'field 1 cannot be labelled "__proto__": n8n leaves a field of that name out of items; choose another label'],
		[[{ fieldLabel: 'prototype' }], 'field 1 cannot be labelled "prototype": n8n leaves a field of that name out of items; choose another label'],
		[[{ fieldLabel: 'A', fieldType: 'constructor' }], 'field "A" has an unknown type "constructor"'],
		[[], 'add at least one field'],
		[[{ fieldLabel: '' }], 'field 1 needs a label'],
		[[{ fieldLabel: 'A' }, { fieldLabel: 'A' }], 'two fields are labelled "A"'],
		[[{ fieldLabel: 'A', fieldType: 'file' }], 'field "A" has an unknown type "file"'],
		[[{ fieldLabel: 'A', fieldType: 'dropdown' }], 'field "A" (dropdown) needs at least one option'],
	])('fields %p: %s', (values, problem) => {
		expect(readFormFields(values)).toEqual({ problem });
	});
	test('pages escape what they show and post to their own address', () => {
		const html = confirmPage('Ship <b>v2</b>?', 'Approve & go', true, 'tok"en');
		expect(html).toContain('<input type="hidden" name="confirmation" value="tok&quot;en">');
		expect(html).toContain('Ship &lt;b&gt;v2&lt;/b&gt;?');
		expect(html).toContain('Approve &amp; go');
		expect(html).toContain('<form method="post" action="">');
		const form = formPage({ title: 'T', description: '', buttonLabel: 'Send' }, fields.fields, 'token', { 'field-0': ['"><script>'] }, { Name: 'This field is required' });
		expect(form).toContain('<input type="hidden" name="confirmation" value="token">');
		expect(form).not.toContain('<script>');
		expect(form).toContain('This field is required');
	});
});
