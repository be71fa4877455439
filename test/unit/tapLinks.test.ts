/**
 * The pure parts of a tap on a link: which hosts the phone's browser may open,
 * and the form a person confirming the page submits (what a browser would send).
 */
import { decodeEntities, readForm } from '../../emulator/bot/htmlForm';
import { TapError, checkLink, isLoopbackHost } from '../../emulator/bot/tap';

describe('isLoopbackHost: literal loopback addresses only', () => {
	it.each([
		['localhost', true],
		['LOCALHOST', true],
		['127.0.0.1', true],
		['127.10.20.30', true],
		['[::1]', true],
		['128.0.0.1', false],
		['127.0.0.256', false],
		['127.0.0', false],
		['localhost.example.com', false],
		['example.com', false],
		['10.0.0.1', false],
		['[::ffff:7f00:1]', false],
	])('%s → %s', (host, loopback) => expect(isLoopbackHost(host)).toBe(loopback));

	it.each([
		['ftp://127.0.0.1/x', 'only http(s) links, not ftp:'],
		['javascript:alert(1)', 'only http(s) links, not javascript:'],
		['file:///etc/passwd', 'only http(s) links, not file:'],
		['http://169.254.169.254/latest', 'loopback addresses only'],
		['not a url', 'not a URL'],
	])('checkLink refuses %s', (link, message) => {
		expect(() => checkLink(link)).toThrow(TapError);
		expect(() => checkLink(link)).toThrow(message);
	});
});

describe('readForm', () => {
	it('collects what a browser submits: inputs with values, checked boxes and radios, textareas, selected options', () => {
		const form = readForm(`<form method="POST" action="/answer?signature=a&amp;b=c">
			<input name="plain" value="one"><input type=hidden name='single' value='two'><input name=bare value=three>
			<input type="checkbox" name="box" value="x"><input type="checkbox" name="box" value="y" checked><input type="radio" name="r" checked>
			<input type="text" name="off" value="no" disabled><input type="file" name="upload"><input type="reset" name="rs">
			<textarea name="note">
line &lt;1&gt;</textarea>
			<select name="team"><option value="a">A</option><option value="b" selected>B</option></select>
			<select name="first"><option disabled>Pick</option><option>Default</option></select>
			<select name="many" multiple><option value="1" selected>1</option><option value="2">2</option><option value="3" selected>3</option></select>
			<button type="button" name="ignored">No</button><input type="submit" name="go" value="Send it"><button name="alt" value="v" formaction="/other" formmethod="GET">Other <b>way</b></button>
		</form>`);
		expect(form).toEqual({
			action: '/answer?signature=a&b=c',
			method: 'post',
			enctype: 'application/x-www-form-urlencoded',
			fields: [
				['plain', 'one'], ['single', 'two'], ['bare', 'three'], ['box', 'y'], ['r', 'on'], ['note', 'line <1>'],
				['team', 'b'], ['first', 'Default'], ['many', '1'], ['many', '3'],
			],
			submits: [
				{ name: 'go', value: 'Send it', text: 'Send it' },
				{ name: 'alt', value: 'v', text: 'Other way', formAction: '/other', formMethod: 'get' },
			],
		});
	});

	it('prefers the form that posts, ignores forms inside comments and scripts, and finds none where there is none', () => {
		const html = `<!-- <form method="post" action="/commented"></form> --><script>const f = '<form method="post" action="/scripted"></form>';</script>
			<form action="/search"><input name="q"></form><form method="post" enctype="multipart/form-data"><input name="a" value="1"></form>`;
		expect(readForm(html)).toEqual({ method: 'post', enctype: 'multipart/form-data', fields: [['a', '1']], submits: [] });
		expect(readForm('<form action="/search"><input name="q" value="x"></form>')).toMatchObject({ action: '/search', method: 'get', fields: [['q', 'x']] });
		expect(readForm('<p>Already answered.</p>')).toBeUndefined();
	});

	it('decodes named and numeric entities and leaves unknown ones', () => {
		expect(decodeEntities('a&amp;b &lt;&gt; &quot;&#39;&#x41;&#66; &bogus; &nbsp;')).toBe('a&b <> "\'AB &bogus; \u00a0');
	});
});
