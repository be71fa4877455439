/**
 * Send and Wait's pure parts: the resume URL on each n8n version, the postback
 * data of an answer in the chat and where the trigger may relay it, the
 * relayed answer's signature, Limit Wait Time, the answer form, and what the
 * trigger makes of the waiting node's reply.
 */
import { buildResumeUrlSuffix, generateUrlSignature, prepareUrlForSigning, validateUrlSignature } from 'n8n-core';

import { answerUrl } from '../../nodes/Workplace/actions/message/sendAndWait/answerUrl';
import { readFormFields, readSubmission } from '../../nodes/Workplace/actions/message/sendAndWait/form';
import { confirmPage, formPage } from '../../nodes/Workplace/actions/message/sendAndWait/pages';
import { limitDate, timeRanOut } from '../../nodes/Workplace/actions/message/sendAndWait/waitTill';
import { AnsweredWaits } from '../../nodes/Workplace/actions/message/sendAndWait/answered';
import {
	answerPostbackData,
	botSigningSecret,
	mayAnswer,
	parseAnswerPostback,
	parseApprovers,
	relayBody,
	relayTarget,
	RELAY_MAX_AGE_MS,
	verifyRelayedAnswer,
	type RelayedAnswer,
} from '../../shared/sendAndWait/chatAnswer';
import { relayErrorOutcome, relayOutcome } from '../../nodes/WorkplaceTrigger/answerRelay';

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
	test('the postback data carries the choice and the resume path and query, and reads back', () => {
		const data = answerPostbackData('decline', resume);
		expect(data).toBe(`n8n-answer|decline|/webhook-waiting/12/${NODE_ID}?answer=chat&signature=${'a'.repeat(64)}`);
		// Short enough for any likely postback data limit (LINE's is 300).
		expect(data.length).toBeLessThan(300);
		expect(parseAnswerPostback(data)).toEqual({ choice: 'decline', path: `/webhook-waiting/12/${NODE_ID}?answer=chat&signature=${'a'.repeat(64)}` });
	});
	test.each([['approve:4711'], ['n8n-answer|maybe|/x/1/2'], ['n8n-answer|approve|'], [42], [null], [undefined]])('%p is not an answer', (data) => {
		expect(parseAnswerPostback(data)).toBeUndefined();
	});

	const OWN = 'http://localhost:5678/webhook/abc/webhook';
	test.each([
		['/webhook-waiting/12/node-1?answer=chat', 'http://localhost:5678/webhook-waiting/12/node-1?answer=chat'],
		['/base/webhook-waiting/12/node-1?answer=chat&signature=ab', 'http://localhost:5678/base/webhook-waiting/12/node-1?answer=chat&signature=ab'],
	])('relays %s to its own instance', (path, expected) => {
		expect(relayTarget(path, OWN)?.toString()).toBe(expected);
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
	])('refuses %s: another address, or not a chat answer\'s', (path) => {
		expect(relayTarget(path, OWN)).toBeUndefined();
	});
	test('refuses everything when the trigger\'s own URL is unknown', () => {
		expect(relayTarget('/webhook-waiting/12/node-1?answer=chat', '')).toBeUndefined();
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
		[500, {}, 'failed'],
	])('%i %p → %s', (status, body, outcome) => {
		expect(relayOutcome(status, body)).toBe(outcome);
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

describe('answered waits: only the first answer for an execution\'s node counts', () => {
	test('a key is taken once; another key is free; after keepMs it is free again', () => {
		const waits = new AnsweredWaits(10, 1000);
		expect(waits.claim('1/node', 0)).toBe(true);
		expect(waits.claim('1/node', 10)).toBe(false);
		expect(waits.has('1/node', 999)).toBe(true);
		expect(waits.claim('2/node', 10)).toBe(true);
		expect(waits.claim('1/other', 10)).toBe(true);
		expect(waits.has('1/node', 1000)).toBe(false);
		expect(waits.claim('1/node', 1000)).toBe(true);
	});
	test('bounded: the oldest entries are dropped first, expired ones whenever one is taken', () => {
		const waits = new AnsweredWaits(3, 1000);
		for (const key of ['a', 'b', 'c', 'd']) expect(waits.claim(key, 0)).toBe(true);
		expect(waits.size).toBe(3);
		expect(waits.has('a', 0)).toBe(false);
		expect(waits.has('d', 0)).toBe(true);
		expect(waits.claim('e', 2000)).toBe(true);
		expect(waits.size).toBe(1);
	});
});

describe('Limit Wait Time ran out (an answer arriving before n8n ended the wait)', () => {
	const now = Date.UTC(2026, 10, 25, 12);
	test.each([
		[undefined, false],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: '2026-11-25T11:59:00Z' }, true],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: '2026-11-25T12:01:00Z' }, false],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: 'soon' }, false],
		// Counted from when the question went out, which an answer does not know.
		[{ limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'minutes' }, false],
	])('%p → %p', (limit, expected) => {
		expect(timeRanOut(limit, now)).toBe(expected);
	});
});

describe('Limit Wait Time', () => {
	const now = Date.UTC(2026, 10, 25, 12);
	test.each([
		[undefined, {}],
		[{}, {}],
		[{ limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' }, { date: new Date(now + 45 * 60_000) }],
		[{ limitType: 'afterTimeInterval', resumeAmount: 1.5, resumeUnit: 'hours' }, { date: new Date(now + 90 * 60_000) }],
		[{ limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'days' }, { date: new Date(now + 2 * 86_400_000) }],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: '2026-11-26T08:00:00.000Z' }, { date: new Date('2026-11-26T08:00:00.000Z') }],
		[{ limitType: 'afterTimeInterval', resumeAmount: 0, resumeUnit: 'hours' }, { problem: 'Amount must be a number above 0, got 0' }],
		[{ limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'weeks' }, { problem: 'Unit must be minutes, hours or days, got "weeks"' }],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: 'soon' }, { problem: 'Max Date and Time must be a date, got "soon"' }],
		[{ limitType: 'atSpecifiedTime', maxDateAndTime: '2020-01-01T00:00:00Z' }, { problem: 'Max Date and Time is in the past (2020-01-01T00:00:00.000Z)' }],
	])('%p → %p', (limit, expected) => {
		expect(limitDate(limit, now)).toEqual(expected);
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
	test.each([
		[[], 'add at least one field'],
		[[{ fieldLabel: '' }], 'field 1 needs a label'],
		[[{ fieldLabel: 'A' }, { fieldLabel: 'A' }], 'two fields are labelled "A"'],
		[[{ fieldLabel: 'A', fieldType: 'file' }], 'field "A" has an unknown type "file"'],
		[[{ fieldLabel: 'A', fieldType: 'dropdown' }], 'field "A" (dropdown) needs at least one option'],
	])('fields %p: %s', (values, problem) => {
		expect(readFormFields(values)).toEqual({ problem });
	});
	test('pages escape what they show and post to their own address', () => {
		const html = confirmPage('Ship <b>v2</b>?', 'Approve & go', true);
		expect(html).toContain('Ship &lt;b&gt;v2&lt;/b&gt;?');
		expect(html).toContain('Approve &amp; go');
		expect(html).toContain('<form method="post" action="">');
		const form = formPage({ title: 'T', description: '', buttonLabel: 'Send' }, fields.fields, { 'field-0': ['"><script>'] }, { Name: 'This field is required' });
		expect(form).not.toContain('<script>');
		expect(form).toContain('This field is required');
	});
});
