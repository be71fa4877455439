import { parseBaseUrl } from '../../shared/transport/baseUrl';

describe('parseBaseUrl: the one Base URL rule of the node and the credential tests', () => {
	it.each([
		['https://workplace.example.com', 'https://workplace.example.com', false],
		['  https://workplace.example.com///  ', 'https://workplace.example.com', false],
		['https://workplace.example.com/api/v1', 'https://workplace.example.com', false],
		['https://workplace.example.com/API/V1/', 'https://workplace.example.com', false],
		['https://workplace.example.com/api/v1/task-projects', 'https://workplace.example.com', false],
		['https://workplace.example.com/bot/v1', 'https://workplace.example.com', false],
		['https://workplace.example.com:8443', 'https://workplace.example.com:8443', false],
		['http://workplace.example.com', 'http://workplace.example.com', true],
		['http://127.0.0.1:8787', 'http://127.0.0.1:8787', false],
		['http://localhost:8787/', 'http://localhost:8787', false],
		['http://[::1]:8787', 'http://[::1]:8787', false],
		['https://user:secret@workplace.example.com', 'https://workplace.example.com', false],
	])('takes %p as %p (plain http to another machine: %p)', (value, url, plainHttp) => {
		expect(parseBaseUrl(value)).toEqual({ url, plainHttp });
	});

	it.each([
		['', 'is empty'],
		[undefined, 'is empty'],
		['workplace.example.com', 'has no scheme: start it with https://'],
		['localhost:8787', 'has no scheme'],
		['ftp://workplace.example.com', 'must start with http:// or https://'],
		['https://', 'is not a valid address'],
		['https://workplace.example.com/?x=1', 'must not contain "?" or "#"'],
		['https://workplace.example.com/#top', 'must not contain "?" or "#"'],
		['https://workplace.example.com/workplace', 'without a path: remove "/workplace"'],
		['https://workplace.example.com/api/v2', 'without a path: remove "/api/v2"'],
		['https://workplace.example.com/api/v1/knowledge', 'without a path: remove "/api/v1/knowledge"'],
	])('refuses %p: %s', (value, expected) => {
		const parsed = parseBaseUrl(value);
		expect('problem' in parsed && parsed.problem).toContain(expected);
	});

	it('never quotes user info it refuses', () => {
		const parsed = parseBaseUrl('https://user:secret@workplace.example.com/somewhere');
		expect('problem' in parsed && parsed.problem).not.toContain('secret');
	});
});
