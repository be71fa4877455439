/**
 * The messages of failures that are not plain service errors (transport/failureMessages.ts).
 */
import {
	consequenceOf,
	isoSecond,
	notTheJsonExpected,
	redirectRefused,
	redirectTarget,
	repeatedPage,
	retriesExhausted,
	seconds,
	waitTooLong,
	operationAndItem,
} from '../../shared/transport/failureMessages';

describe('failureMessages', () => {
	it('names the operation and the item', () => {
		expect(operationAndItem('Get a knowledge base', 3)).toBe('Get a knowledge base (item 3)');
		expect(operationAndItem('Search knowledge bases', undefined)).toBe('Search knowledge bases');
		expect(operationAndItem(undefined, 0)).toBe('The request (item 0)');
	});

	it('writes seconds and dates as people read them', () => {
		expect(seconds(2000)).toBe('2 s');
		expect(seconds(200)).toBe('0.2 s');
		expect(seconds(1449)).toBe('1.4 s');
		expect(isoSecond(Date.UTC(2026, 10, 23, 10, 49, 46, 998))).toBe('2026-11-23T10:49:47Z');
	});

	it('a wait beyond Max Wait: seconds, the date, and that the node stopped', () => {
		const now = Date.UTC(2026, 10, 23, 10, 0, 0);
		const told = waitTooLong('Get a knowledge base (item 0)', 300_000, 2000, 'Too Many Requests', now);
		expect(told.message).toBe(
			'Get a knowledge base (item 0): the service asked to wait 300 s, until 2026-11-23T10:05:00Z; that is longer than Max Wait (2 s), so the node stopped instead of waiting',
		);
		expect(told.description).toBe('Run this item again after 2026-11-23T10:05:00Z, or raise Max Wait (Seconds) in Retry and Timeout.\nThe service said: Too Many Requests');
	});

	it('retries exhausted: attempts, time, last status or failure', () => {
		expect(retriesExhausted('X (item 1)', 4, 3210, { status: 503, serviceSaid: 'Down' })).toBe(
			'X (item 1): gave up after 4 attempts over 3.2 s; the last answer was 503 (the service said: Down)',
		);
		expect(retriesExhausted('X (item 1)', 2, 500, { status: 502 })).toBe('X (item 1): gave up after 2 attempts over 0.5 s; the last answer was 502');
		expect(retriesExhausted('X (item 1)', 3, 1000, { what: 'The connection to the service was reset' })).toBe(
			'X (item 1): gave up after 3 attempts over 1 s; the last attempt failed: the connection to the service was reset',
		);
	});

	it('a redirect shows scheme and host only, resolved against the request', () => {
		expect(redirectTarget('https://a.example:8443/p?q=secret#f', 'http://svc/x')).toBe('https://a.example:8443');
		expect(redirectTarget('/login?next=1', 'http://127.0.0.1:9000/api/v1/x')).toBe('http://127.0.0.1:9000');
		expect(redirectTarget(['https://b.example/'], 'http://svc/x')).toBe('https://b.example');
		expect(redirectTarget('', 'http://svc/x')).toBeUndefined();
		expect(redirectTarget(undefined, 'http://svc/x')).toBeUndefined();
		expect(redirectRefused('Y (item 0)', 307, 'https://b.example').message).toBe(
			'Y (item 0): the service answered with a redirect (307) to another address, https://b.example; the node does not follow redirects, so the credentials are sent only to the Base URL. This is not an error of the service',
		);
		expect(redirectRefused('Y (item 0)', 302, undefined).message).toMatch(/redirect \(302\) to another address it did not name readably/);
	});

	it('a 2xx that is not the JSON expected, with what it means for the data', () => {
		expect(notTheJsonExpected('Z (item 2)', 200, 'text/html', 'notJson', 'a JSON answer', consequenceOf({ method: 'GET' })).message).toBe(
			'Z (item 2): the service answered 200 (text/html) with a body that is not JSON, where a JSON answer was expected; it was a read, so nothing was changed',
		);
		expect(consequenceOf({ method: 'POST', subject: 'task' })).toMatch(/^the task may have been created even so/);
		expect(consequenceOf({ method: 'PUT', subject: 'knowledge file' })).toBe('the service reported success, so the change has probably been made; sending it again is safe');
		expect(notTheJsonExpected('Z', 201, undefined, 'invalid', 'a JSON answer', 'x').message).toContain('201 (no content type) with a body that is not valid JSON');
	});

	it('a repeated page', () => {
		expect(repeatedPage('L (item 0)', 3, 2, 1)).toBe(
			'L (item 0): page 3 repeats page 2 (the same 1 item), as if the service ignored the page asked for; the node stopped instead of reading the same items again',
		);
	});
});
