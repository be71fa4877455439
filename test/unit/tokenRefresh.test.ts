/**
 * One token request at a time (transport/tokenRefresh.ts) with a stand-in for n8n's
 * preAuthentication; the engine-level proof is in test/reliability/faults.test.ts.
 */
import { sendWithToken, type TokenFields } from '../../shared/transport/tokenRefresh';

const FIELDS: TokenFields = { token: 'accessToken', expirable: 'accessTokenValid' };

function credential() {
	const data: Record<string, string> = { accessToken: 'old', accessTokenValid: 'yes' };
	let fetches = 0;
	/** What httpRequestWithAuthentication does: fetch when the expirable field is empty, then send with the token. */
	const send = async () => {
		if (data.accessTokenValid === '') {
			fetches++;
			await new Promise((resolve) => setImmediate(resolve));
			data.accessToken = `new-${fetches}`;
			data.accessTokenValid = 'yes';
		}
		await new Promise((resolve) => setImmediate(resolve));
		return data.accessToken;
	};
	return { data, send, fetches: () => fetches };
}

describe('sendWithToken', () => {
	it('eight requests refused with the same token fetch one new token and all send with it', async () => {
		const c = credential();
		const sent = await Promise.all(Array.from({ length: 8 }, () => sendWithToken(c.data, FIELDS, c.send, 'old')));
		expect(c.fetches()).toBe(1);
		expect(sent.map((s) => s.result)).toEqual(Array(8).fill('new-1'));
		expect(sent.map((s) => s.token)).toEqual(Array(8).fill('new-1'));
	});

	it('a request refused with a token already replaced uses the new one without fetching', async () => {
		const c = credential();
		c.data.accessToken = 'newer';
		const sent = await sendWithToken(c.data, FIELDS, c.send, 'old');
		expect(c.fetches()).toBe(0);
		expect(sent.result).toBe('newer');
	});

	it('without a usable token, requests sent together fetch one', async () => {
		const c = credential();
		c.data.accessTokenValid = '';
		const sent = await Promise.all(Array.from({ length: 5 }, () => sendWithToken(c.data, FIELDS, c.send)));
		expect(c.fetches()).toBe(1);
		expect(new Set(sent.map((s) => s.result))).toEqual(new Set(['new-1']));
	});

	it('a failed fetch lets the next request try again, one at a time', async () => {
		const c = credential();
		c.data.accessTokenValid = '';
		let failures = 0;
		const failing = async () => {
			failures++;
			throw new Error('token endpoint down');
		};
		await expect(sendWithToken(c.data, FIELDS, failing)).rejects.toThrow('token endpoint down');
		const sent = await sendWithToken(c.data, FIELDS, c.send);
		expect(failures).toBe(1);
		expect(c.fetches()).toBe(1);
		expect(sent.result).toBe('new-1');
	});
});
