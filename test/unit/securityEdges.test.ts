/**
 * Issue 23 (security and data safety, second round): the pure decisions behind
 * each fix, as tables. The node and trigger tests show the same in the engine.
 */
import type { IDataObject } from 'n8n-workflow';

import { plainFileName } from '../../shared/binaryFile';
import { checkMessages, MessageProblem } from '../../nodes/Workplace/actions/message/model';
import { characterCount } from '../../shared/characters';
import { ownEntry } from '../../shared/ownEntry';
import { beyondExactIds, positiveId } from '../../shared/positiveId';
import { jwtProblem, readJwtExpiry } from '../../shared/transport/jwt';
import { listChange } from '../../shared/transport/pageRules';
import { positionFromToken, positionToken } from '../../shared/transport/paging';
import { mayHaveReachedService, repeatAnswerMeansDone } from '../../shared/transport/retry';
import { LAST_DATE_MS, tokenLifetime } from '../../shared/transport/tokenLifetime';
import { MAX_EVENTS_PER_CALL, nestedDeeperThan } from '../../nodes/WorkplaceTrigger/bodyLimits';
import { eventTime } from '../../nodes/WorkplaceTrigger/events';
import { eventKey, freshness, SeenEvents } from '../../nodes/WorkplaceTrigger/replay';
import { buttons } from '../messageLimits';

const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

describe('replay protection (item 2)', () => {
	it.each<[string, number | null, number, string]>([
		['now', NOW, 5, 'fresh'],
		['at the window\'s edge, past', NOW - 5 * 60_000, 5, 'fresh'],
		['just past it', NOW - 5 * 60_000 - 1, 5, 'stale'],
		['skewed ahead within it', NOW + 4 * 60_000, 5, 'fresh'],
		['ahead beyond it', NOW + 6 * 60_000, 5, 'stale'],
		['undated', null, 5, 'undated'],
	])('an event %s is %s', (_label, eventMs, minutes, expected) => {
		expect(freshness(eventMs, NOW, minutes * 60_000)).toBe(expected);
	});

	it('knows an event by all of it: the same event gives the same key, any change another', () => {
		const event = { type: 'postback', replyToken: 'rt-1', timestamp: NOW, postback: { data: 'approve' } };
		expect(eventKey(event)).toBe(eventKey({ ...event }));
		expect(eventKey(event)).toMatch(/^[A-Za-z0-9_-]{22}$/);
		expect(eventKey({ ...event, replyToken: 'rt-2' })).not.toBe(eventKey(event));
		expect(eventKey({ ...event, timestamp: NOW + 1 })).not.toBe(eventKey(event));
	});

	it('lets an event through once per trigger, until its window ends', () => {
		const seen = new SeenEvents();
		expect(seen.firstTime('wf1\u0000Trigger', 'k1', NOW, NOW + 1000)).toBe(true);
		expect(seen.firstTime('wf1\u0000Trigger', 'k1', NOW + 999, NOW + 2000)).toBe(false);
		// Another trigger has its own table.
		expect(seen.firstTime('wf2\u0000Trigger', 'k1', NOW, NOW + 1000)).toBe(true);
		// Once the window has ended, the event is forgotten.
		expect(seen.firstTime('wf1\u0000Trigger', 'k1', NOW + 1000, NOW + 2000)).toBe(true);
	});

	it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('knows no event called %s it was not given', (key) => {
		expect(new SeenEvents().firstTime('wf\u0000T', key, NOW, NOW + 1)).toBe(true);
	});

	it('remembers at most its cap per trigger, forgetting the earliest first', () => {
		const seen = new SeenEvents(3);
		for (const key of ['a', 'b', 'c', 'd']) expect(seen.firstTime('t', key, NOW, NOW + 10)).toBe(true);
		expect(seen.size('t', NOW)).toBe(3);
		expect(seen.firstTime('t', 'a', NOW, NOW + 10)).toBe(true);
		expect(seen.firstTime('t', 'd', NOW, NOW + 10)).toBe(false);
	});
});

describe('limits per call (items 3 and 4)', () => {
	const nested = (depth: number) => {
		let value: unknown = 1;
		for (let n = 0; n < depth; n++) value = n % 2 ? { v: value } : [value];
		return value;
	};
	it.each([
		[0, 32, false],
		[32, 32, false],
		[33, 32, true],
		[200_000, 32, true],
	])('nesting %i deep with a limit of %i: over = %s (checked without recursion)', (depth, max, over) => {
		expect(nestedDeeperThan(nested(depth), max)).toBe(over);
	});

	it('caps events per call at 100', () => {
		expect(MAX_EVENTS_PER_CALL).toBe(100);
	});
});

describe('event times (item 11)', () => {
	const zone = process.env.TZ;
	afterEach(() => {
		if (zone === undefined) delete process.env.TZ;
		else process.env.TZ = zone;
	});

	it.each(['Asia/Bangkok', 'America/Los_Angeles', 'UTC'])('reads a time without a zone as UTC on a server in %s', (tz) => {
		process.env.TZ = tz;
		expect(eventTime('2024-06-10T06:13:20')).toEqual({ timestamp: '2024-06-10T06:13:20.000Z', timestampMs: 1718000000000 });
		expect(eventTime('2024-06-10T13:13:20+07:00').timestampMs).toBe(1718000000000);
	});

	it.each<[string, unknown]>([
		['"-5"', '-5'],
		['-5', -5],
		['"yesterday"', 'yesterday'],
		['"2024-02-30T00:00:00Z" (no such day)', '2024-02-30T00:00:00Z'],
		['"Mon, 10 Jun 2024"', 'Mon, 10 Jun 2024'],
		['1e300', 1e300],
		['NaN', Number.NaN],
		['an object', { at: 1 }],
	])('reads %s as no time', (_label, value) => {
		expect(eventTime(value)).toEqual({ timestamp: null, timestampMs: null });
	});

	it('still reads epoch milliseconds, epoch seconds and ISO with a zone', () => {
		expect(eventTime(1718000000000).timestampMs).toBe(1718000000000);
		expect(eventTime(1718000000).timestampMs).toBe(1718000000000);
		expect(eventTime('1718000000000').timestampMs).toBe(1718000000000);
		expect(eventTime('2024-06-10T06:13:20.100Z').timestampMs).toBe(1718000000100);
	});
});

describe('token and JWT times (item 11)', () => {
	it.each<[string, unknown, boolean]>([
		['3600', 3600, true],
		['"3600"', '3600', true],
		['1e13 (past any date)', 1e13, false],
		['Infinity', Infinity, false],
		['0', 0, false],
		['-5', -5, false],
		['missing', undefined, false],
		['text', 'soon', false],
	])('expires_in %s gives a time-based refresh: %s', (_label, value, refreshes) => {
		const lifetime = tokenLifetime(value, NOW);
		expect(lifetime !== undefined).toBe(refreshes);
		if (lifetime) expect(lifetime.refreshAt).toBeLessThan(Date.parse(lifetime.expiresAt));
	});

	it('takes a lifetime right up to the last date', () => {
		expect(tokenLifetime((LAST_DATE_MS - NOW) / 1000, NOW)?.expiresAt).toBe('+275760-09-13T00:00:00.000Z');
	});

	const jwt = (payload: IDataObject) =>
		`${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
	it.each([-1e13, 1e13, -8.64e12 - 1])('refuses exp %s clearly instead of throwing', (exp) => {
		expect(readJwtExpiry(jwt({ exp }))).toEqual({ ok: false, problem: `JWT is malformed (its "exp" claim, ${exp}, is not a time any date can hold)` });
		expect(() => jwtProblem(jwt({ exp }), NOW)).not.toThrow();
	});
	it('still reads an ordinary exp, and the earliest date as expired', () => {
		expect(jwtProblem(jwt({ exp: NOW / 1000 + 60 }), NOW)).toBeUndefined();
		expect(jwtProblem(jwt({ exp: -8.64e12 }), NOW)).toMatch(/^The credential's JWT expired at -271821-04-20T00:00:00.000Z/);
	});
});

describe('ids beyond 2^53 (item 6)', () => {
	it.each<[unknown, number | undefined, boolean]>([
		['9007199254740991', 9007199254740991, false],
		['9007199254740992', undefined, true],
		['9007199254740993', undefined, true],
		[9007199254740993, undefined, true],
		['42', 42, false],
		[' 7 ', 7, false],
		['0', undefined, false],
		['abc', undefined, false],
	])('%j → %s (beyond exact ids: %s)', (raw, id, beyond) => {
		expect(positiveId(raw)).toBe(id);
		expect(beyondExactIds(raw)).toBe(beyond);
	});
});

describe('tables keyed by user text (item 9)', () => {
	const table = { high: 1, pdf: 'application/pdf' };
	it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'])('%s is no key', (key) => {
		expect(ownEntry(table, key)).toBeUndefined();
	});
	it('own keys are found', () => {
		expect(ownEntry(table, 'high')).toBe(1);
		expect(ownEntry(table, 'pdf')).toBe('application/pdf');
	});
});

describe('button links (item 10)', () => {
	function problem(messages: unknown): string {
		try {
			checkMessages(messages);
		} catch (error) {
			if (error instanceof MessageProblem) return error.messageFor(0);
			throw error;
		}
		throw new Error('no problem found');
	}
	const link = (linkUri: string) => buttons({ actions: [{ type: 'postback', label: 'Ack', data: 'a' }, { type: 'uri', label: 'Open', linkUri }] });

	it.each(['javascript:alert(1)', 'JAVASCRIPT:alert(1)', ' javascript:alert(1)', 'data:text/html,<b>x</b>', 'file:///etc/passwd', 'vbscript:x', 'tel:+6621234567', 'intent://x#Intent;end', 'https:no-slashes', 'http://'])(
		'refuses %j, naming the button',
		(uri) => {
			expect(problem(link(uri))).toMatch(/^Invalid "Link URI" of button 2 in message 1, item 0: must be an absolute http\(s\) URL/);
		},
	);
	it.each(['https://status.example.com/4711', 'http://intranet.example/oncall', 'HTTPS://EXAMPLE.COM/x'])('takes %j', (uri) => {
		expect(() => checkMessages(link(uri))).not.toThrow();
	});
});

describe('characters as a person sees them (item 13)', () => {
	it.each<[string, string, number]>([
		['ASCII', 'Approve', 7],
		['a thumb with a skin tone', '👍🏽', 1],
		['a flag', '🇹🇭', 1],
		['a family', '👨‍👩‍👧‍👦', 1],
		['Thai with vowel and tone marks', 'ที่นี่', 2],
		['e and a combining accent', 'e\u0301', 1],
	])('%s (%j) counts as %i', (_label, text, count) => {
		expect(characterCount(text)).toBe(count);
	});
});

describe('plain downloaded file names (item 12)', () => {
	it.each<[string, string]>([
		['../../../home/node/.n8n/config', 'config'],
		['..\\..\\win.ini', 'win.ini'],
		['/etc/passwd', 'passwd'],
		['a/b/', 'fallback'],
		['..', 'fallback'],
		['', 'fallback'],
		['\u0000\u0007', 'fallback'],
		['report 2025.pdf', 'report 2025.pdf'],
		['.env', '.env'],
		['ภาษาไทย.pdf', 'ภาษาไทย.pdf'],
	])('%j → %j', (name, plain) => {
		expect(plainFileName(name, 'fallback')).toBe(plain);
	});
});

describe('retried requests (item 7)', () => {
	it.each<[string, Parameters<typeof mayHaveReachedService>[0], boolean]>([
		['a reset', { network: 'ECONNRESET' }, true],
		['a timeout', { network: 'ETIMEDOUT' }, true],
		['a refused connection', { network: 'ECONNREFUSED' }, false],
		['an unresolved name', { network: 'ENOTFOUND' }, false],
		['504', { status: 504 }, true],
		['502', { status: 502 }, true],
		['429', { status: 429 }, false],
		['404', { status: 404 }, false],
	])('%s may have reached the service: %s', (_label, outcome, reached) => {
		expect(mayHaveReachedService(outcome)).toBe(reached);
	});

	it.each<[string, 'GET' | 'PUT' | 'DELETE' | 'POST', number, boolean]>([
		['DELETE 404', 'DELETE', 404, true],
		['DELETE 410', 'DELETE', 410, true],
		['DELETE 403', 'DELETE', 403, false],
		['GET 404', 'GET', 404, false],
		['PUT 404', 'PUT', 404, false],
		['POST 404', 'POST', 404, false],
	])('a repeat answering %s after such an attempt is done: %s', (_label, method, status, done) => {
		expect(repeatAnswerMeansDone({ method }, status)).toBe(done);
	});
});

describe('lists that change while read (item 8)', () => {
	it.each<[string, Parameters<typeof listChange>, string | undefined]>([
		['nothing changed', [{ total: 28, pageCount: 3 }, { total: 28, pageCount: 3 }, 0], undefined],
		['the total dropped', [{ total: 28, pageCount: 3 }, { total: 27, pageCount: 3 }, 0], 'its total went from 28 to 27'],
		['the page count grew', [{ pageCount: 3 }, { pageCount: 4 }, 0], 'its page count went from 3 to 4'],
		['ids came again', [undefined, undefined, 2], '2 items came again on a later page'],
		['the first page had no metadata', [undefined, { total: 5 }, 0], undefined],
	])('%s', (_label, args, said) => {
		expect(listChange(...args)).toBe(said);
	});

	it('carries what the first page said in the list search token, and reads old tokens', () => {
		const at = { page: 3, received: 20, previous: 'abc', first: { total: 28, pageCount: 3 } };
		expect(positionFromToken(positionToken(at))).toEqual(at);
		expect(positionFromToken('2:10:abc')).toEqual({ page: 2, received: 10, previous: 'abc' });
		expect(positionFromToken('4')).toEqual({ page: 4, received: 0, previous: undefined });
	});

	it('carries the page size the first page was answered with, and reads nonsense as none', () => {
		for (const at of [
			{ page: 2, received: 20, previous: 'abc', first: { total: 28, pageCount: 2 }, pageSize: 20 },
			{ page: 2, received: 25, previous: 'abc', pageSize: 'serviceDefault' as const },
		]) {
			expect(positionFromToken(positionToken(at))).toEqual(at);
		}
		expect(positionToken({ page: 2, received: 25, previous: 'abc', pageSize: 'serviceDefault' })).toBe('2:25:abc:::default');
		for (const size of ['0', '-5', '2.5', 'huge', '']) {
			expect(positionFromToken(`2:20:abc:::${size}`)).toEqual({ page: 2, received: 20, previous: 'abc' });
		}
	});
});
