/**
 * One token request at a time. n8n fetches a token (the credential's
 * preAuthentication) inside any request whose credential has an empty expirable
 * field, and again after every 401 it sees, so with Requests in Parallel each
 * item refused at once would fetch its own. Instead the transport lets 401 come
 * back as data and asks for a token itself, through sendWithToken: one request of
 * the run carries the token request (its expirable field emptied first), every
 * other request of the run waits for it and is then sent with the new token.
 */
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

/** How a credential keeps its token: the field with the token, and the field whose emptiness makes n8n fetch one. */
export interface TokenFields {
	token: string;
	expirable: string;
}

/** The fetch under way per credential object of a run (n8n writes the new token into that object). */
const fetching = new WeakMap<ICredentialDataDecryptedObject, Promise<void>>();

/** The token a request is about to be sent with ('' when there is none yet). */
export function currentToken(data: ICredentialDataDecryptedObject, fields: TokenFields): string {
	const token = data[fields.token];
	return typeof token === 'string' ? token : '';
}

/** Whether n8n would fetch a token before sending (the expirable field is empty). */
export function needsToken(data: ICredentialDataDecryptedObject, fields: TokenFields): boolean {
	return data[fields.expirable] === '' || data[fields.expirable] === undefined;
}

/**
 * Sends `send` as the one request that fetches a new token: the expirable field
 * is emptied, so n8n's preAuthentication fetches one before sending and writes
 * it into `data`. Requests of the run that come meanwhile wait in sendWithToken.
 */
async function sendFetchingToken<T>(data: ICredentialDataDecryptedObject, fields: TokenFields, send: (fetchesToken: boolean) => Promise<T>): Promise<T> {
	let done!: () => void;
	const pending = new Promise<void>((resolve) => (done = resolve));
	fetching.set(data, pending);
	data[fields.expirable] = '';
	try {
		return await send(true);
	} finally {
		if (fetching.get(data) === pending) fetching.delete(data);
		done();
	}
}

/**
 * How to send one attempt: fetching a token first when none is usable and no
 * other request is fetching one, else as it is (after any fetch under way);
 * `send` is told whether the token is fetched within it.
 * `refused` is the token of an attempt the service just refused with a 401:
 * when the credential still holds that token, a new one is fetched; when another
 * request has replaced it meanwhile, the new one is used without asking again.
 */
export async function sendWithToken<T>(
	data: ICredentialDataDecryptedObject,
	fields: TokenFields,
	send: (fetchesToken: boolean) => Promise<T>,
	refused?: string,
): Promise<{ result: T; token: string }> {
	// Waits while another request of the run fetches a token; no await when none does, so the
	// check below and the start of a fetch happen in one step, with no other request between.
	for (let pending = fetching.get(data); pending; pending = fetching.get(data)) await pending;
	const stale = refused !== undefined && currentToken(data, fields) === refused;
	if (stale || needsToken(data, fields)) {
		let token = '';
		const result = await sendFetchingToken(data, fields, async (fetchesToken) => {
			const answer = await send(fetchesToken);
			token = currentToken(data, fields);
			return answer;
		});
		return { result, token };
	}
	const token = currentToken(data, fields);
	return { result: await send(false), token };
}
