/**
 * The one rule for text ids that go into a URL path (pathSafeIdProblem): what
 * it refuses, what it lets through to be percent-encoded as one segment.
 */
import { pathSafeIdProblem } from '../../shared/pathSafeId';

describe('pathSafeIdProblem', () => {
	it.each([
		['a slash', 'g1/admin', /must not contain "\/"/],
		['a parent step', '../admin', /must not contain "\/"/],
		['a backslash', 'g1\\..\\admin', /must not contain "\\"/],
		['a question mark', 'g1?x=1', /must not contain "\?"/],
		['a hash', 'g1#top', /must not contain "#"/],
		['a percent sign (pre-encoded slash)', '..%2Fadmin', /must not contain "%"/],
		['a percent-encoded dot', '%2e', /must not contain "%"/],
		['a space', 'g 1', /whitespace/],
		['a tab', 'g\t1', /whitespace/],
		['a line break', 'g1\n', /whitespace/],
		['a no-break space', 'g\u00a01', /whitespace/],
		['a NUL', 'g\u00001', /control characters/],
		['an escape', 'g\u001b1', /control characters/],
		['DEL', 'g\u007f', /control characters/],
		['a C1 control', 'g\u00851', /whitespace|control characters/],
		['one dot', '.', /not only dots/],
		['two dots', '..', /not only dots/],
		['three dots', '...', /not only dots/],
		['nothing', '', /is required/],
	])('refuses %s', (_label, value, message) => {
		expect(pathSafeIdProblem(value)).toMatch(message);
	});

	it('shows control characters escaped and long values cut, never raw', () => {
		expect(pathSafeIdProblem('a\u0000b')).toContain('"a\\u0000b"');
		const long = `${'x'.repeat(60)}/`;
		expect(pathSafeIdProblem(long)).toContain(`"${'x'.repeat(40)}…"`);
	});

	it.each([
		'g1',
		'U1234abcd',
		'group-1_a.b~c',
		'a..b',
		'.hidden',
		'user@example.com',
		'a:b;c=d&e+f,g',
		'ทีมขาย',
		'über',
		'1',
	])('lets %j through', (value) => {
		expect(pathSafeIdProblem(value)).toBeUndefined();
	});
});
