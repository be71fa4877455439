import { BOT_USER_ID, defaultGroupSettings, SEED_GROUP_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { multipartForm, sha256 } from '../../testbed/httpClient';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed();

type Json = Record<string, unknown>;

function basic(id = bed.emulator.config.clientId, secret = bed.emulator.config.clientSecret): string {
	return 'Basic ' + Buffer.from(`${id}:${secret}`).toString('base64');
}

/** POST /oauth/token with the bot client's Basic credentials (`headers` may replace them). */
async function tokenRequest(form: string | undefined, headers: Record<string, string> = {}) {
	const res = await bed.call('/oauth/token', { method: 'POST', auth: 'botClient', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: form });
	return { status: res.status, body: res.body as Json };
}

const newToken = (scope?: string) => bed.newBotToken(scope);

async function call(method: string, path: string, token: string | undefined, body?: string | FormData, headers: Record<string, string> = {}) {
	const res = await bed.call(path, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers }, body });
	return { status: res.status, body: res.body as Json };
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function groupForm(parts: { name?: string; uids?: string[]; file?: { data: Buffer; type: string; filename?: string } }) {
	const fields: Array<[string, string]> = [...(parts.name === undefined ? [] : [['name', parts.name] as [string, string]]), ...(parts.uids ?? []).map((uid): [string, string] => ['uids[]', uid])];
	return multipartForm(fields, parts.file ? [{ ...parts.file, filename: parts.file.filename ?? 'pic.png' }] : []);
}

describe('POST /oauth/token', () => {
	it('issues tokens for client credentials and answers OAuth errors', async () => {
		const before = bed.emulator.bot.tokenRequests;
		const ok = await tokenRequest('grant_type=client_credentials&scope=bot+profile');
		expect(ok).toEqual({
			status: 200,
			body: {
				access_token: expect.stringMatching(/^[0-9a-f]{40}$/),
				token_type: 'Bearer',
				expires_in: bed.emulator.config.tokenTtlSeconds,
				scope: 'bot profile',
			},
		});
		expect(bed.emulator.bot.tokens.get(ok.body.access_token as string)).toMatchObject({ scopes: ['bot', 'profile'] });
		expect((await tokenRequest('grant_type=client_credentials')).body.scope).toBe('bot profile');
		expect((await tokenRequest('grant_type=client_credentials&scope=bot')).body.scope).toBe('bot');

		expect(await tokenRequest('grant_type=client_credentials', { authorization: basic(bed.emulator.config.clientId, 'wrong') })).toEqual({
			status: 401,
			body: { error: 'invalid_client', error_description: expect.any(String) },
		});
		expect((await tokenRequest('grant_type=client_credentials', { authorization: '' })).body.error).toBe('invalid_client');
		const json = await tokenRequest(JSON.stringify({ grant_type: 'client_credentials' }), {
			'content-type': 'application/json',
		});
		expect(json).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
		expect(await tokenRequest('grant_type=password')).toMatchObject({
			status: 400,
			body: { error: 'unsupported_grant_type' },
		});
		expect(await tokenRequest('grant_type=client_credentials&scope=bot+admin')).toMatchObject({
			status: 400,
			body: { error: 'invalid_scope' },
		});
		// Every attempt counts, failed ones included.
		expect(bed.emulator.bot.tokenRequests - before).toBe(8);
	});

	it('grants only the scopes it is set to: `bot` alone, as the public pages show', async () => {
		bed.emulator.setConfig({ tokenScopes: ['bot'] });
		expect(await tokenRequest('grant_type=client_credentials&scope=bot+profile')).toEqual({
			status: 400,
			body: { error: 'invalid_scope', error_description: 'Unknown scope: profile' },
		});
		// No scope asks for the documents' `bot profile`, refused the same way.
		expect((await tokenRequest('grant_type=client_credentials')).body.error).toBe('invalid_scope');
		expect(await tokenRequest('grant_type=client_credentials&scope=bot')).toMatchObject({ status: 200, body: { scope: 'bot' } });
	});

	it('reads the client ID and secret from the form alone when set to, refusing them by HTTP Basic', async () => {
		bed.emulator.setConfig({ tokenClientAuth: 'form' });
		const { clientId, clientSecret } = bed.emulator.config;
		const form = (id: string, secret: string) => `grant_type=client_credentials&scope=bot+profile&client_id=${encodeURIComponent(id)}&client_secret=${encodeURIComponent(secret)}`;
		// tokenRequest sends HTTP Basic: alone, it is not read.
		expect(await tokenRequest('grant_type=client_credentials&scope=bot+profile')).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
		expect(await tokenRequest(form(clientId, 'wrong'), { authorization: '' })).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
		expect(await tokenRequest(form(clientId, clientSecret), { authorization: '' })).toMatchObject({ status: 200, body: { scope: 'bot profile' } });
		// The log keeps the secret's fingerprint only.
		expect(JSON.stringify(bed.emulator.log)).not.toContain(clientSecret);
	});

	it('takes only what it knows as token settings (PATCH /__emulator/config)', async () => {
		for (const patch of [{ tokenClientAuth: 'header' }, { tokenScopes: 'bot' }, { tokenScopes: ['bot profile'] }, { tokenScopes: [1] }]) {
			const res = await bed.call('/__emulator/config', { method: 'PATCH', body: JSON.stringify(patch), headers: { 'content-type': 'application/json' } });
			expect(res.status).toBe(400);
		}
		expect(bed.emulator.config).toMatchObject({ tokenClientAuth: 'basic', tokenScopes: ['bot', 'profile'] });
	});
});

describe('bot auth', () => {
	it('rejects missing, unknown, scope-less and expired tokens with 401', async () => {
		const path = '/bot/v1/users?username=somchai';
		expect(await call('GET', path, undefined)).toEqual({
			status: 401,
			body: { code: 'unauthorized', message: 'Invalid access token' },
		});
		expect((await call('GET', path, 'f'.repeat(40))).body.message).toBe('Invalid access token');
		expect((await call('GET', path, await newToken('profile'))).body.message).toBe('The bot scope is required');

		const token = await newToken();
		expect((await call('GET', path, token)).status).toBe(200);
		bed.emulator.expireBotTokens();
		expect(await call('GET', path, token)).toEqual({
			status: 401,
			body: { code: 'unauthorized', message: 'Access token expired' },
		});
		// A fresh token works again; reset() drops tokens and expiry still works after it.
		const fresh = await newToken();
		expect((await call('GET', path, fresh)).status).toBe(200);
		bed.emulator.reset();
		expect((await call('GET', path, fresh)).body.message).toBe('Invalid access token');
		const afterReset = await newToken();
		bed.emulator.expireBotTokens();
		expect((await call('GET', path, afterReset)).body.message).toBe('Access token expired');
	});
});

describe('POST /bot/v1/groups', () => {
	it('creates a group from repeated uids[] parts and a picture, and rejects bad input', async () => {
		const token = await newToken();
		const uids = [SEED_USER_IDS.somchai, SEED_USER_IDS.anan, SEED_USER_IDS.somchai];
		const ok = await call('POST', '/bot/v1/groups', token, groupForm({ name: 'War room', uids, file: { data: PNG, type: 'image/png' } }));
		expect(ok.status).toBe(200);
		expect(ok.body).toEqual({
			group: {
				_id: expect.stringMatching(/^[0-9a-f]{24}$/),
				name: 'War room',
				type: 'group_chatv2',
				userCount: 3, // the bot + two distinct members
				settings: defaultGroupSettings(),
			},
		});
		const stored = bed.emulator.bot.groups.get((ok.body.group as Json)._id as string)!;
		expect([...stored.members]).toEqual([BOT_USER_ID, SEED_USER_IDS.somchai, SEED_USER_IDS.anan]);
		expect(stored.picture).toMatchObject({ size: PNG.length, sha256: sha256(PNG) });
		// The request log shows every part, the picture hashed.
		const logged = bed.emulator.logFor('POST', '/bot/v1/groups').at(-1)!;
		expect(logged.parts).toEqual([
			{ name: 'name', size: 8, value: 'War room' },
			...uids.map((uid) => ({ name: 'uids[]', size: 24, value: uid })),
			{
				name: 'file',
				filename: 'pic.png',
				contentType: 'image/png',
				size: PNG.length,
				sha256: sha256(PNG),
			},
		]);
		// Without a picture too.
		expect((await call('POST', '/bot/v1/groups', token, groupForm({ name: 'Plain', uids: [SEED_USER_IDS.arthit] }))).status).toBe(200);

		const bad = async (form: FormData) => call('POST', '/bot/v1/groups', token, form);
		expect(await bad(groupForm({ uids: [SEED_USER_IDS.anan] }))).toEqual({
			status: 400,
			body: { code: 'invalid_request', message: 'name is required' },
		});
		expect((await bad(groupForm({ name: 'x' }))).body.message).toMatch(/uids\[\]/);
		const bare = new FormData();
		bare.append('name', 'x');
		bare.append('uids', SEED_USER_IDS.anan);
		expect((await bad(bare)).body.message).toMatch(/part named uids\[\]/);
		expect(await bad(groupForm({ name: 'x', uids: [SEED_USER_IDS.anan], file: { data: Buffer.from('hi'), type: 'text/plain' } }))).toMatchObject({
			status: 400,
			body: { code: 'invalid_file' },
		});
		const big = Buffer.alloc(5 * 1024 * 1024 + 1);
		expect((await bad(groupForm({ name: 'x', uids: [SEED_USER_IDS.anan], file: { data: big, type: 'image/jpeg' } }))).body.code).toBe('invalid_file');
		expect(await bad(groupForm({ name: 'x', uids: [SEED_USER_IDS.anan, 'nobody'] }))).toEqual({
			status: 404,
			body: { code: 'user_not_found', message: 'User nobody not found' },
		});
		expect((await bad(groupForm({ name: 'x', uids: [SEED_USER_IDS.somchaiOld] }))).status).toBe(404);
		const notMultipart = await call('POST', '/bot/v1/groups', token, 'name=x&uids[]=y', {
			'content-type': 'application/x-www-form-urlencoded',
		});
		expect(notMultipart).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
		expect((await call('POST', '/bot/v1/groups', undefined, groupForm({ name: 'x', uids: [SEED_USER_IDS.anan] }))).status).toBe(401);
	});
});

describe('POST /bot/v1/groups/{group_id}/topics', () => {
	it('reads the one body it is set to (form-encoded, or JSON) and checks group and membership', async () => {
		const token = await newToken();
		const topicsBefore = bed.emulator.bot.topics.size;
		const path = `/bot/v1/groups/${SEED_GROUP_IDS.incidentRoom}/topics`;
		const form = await call('POST', path, token, 'name=Deploy+freeze', {
			'content-type': 'application/x-www-form-urlencoded',
		});
		expect(form).toEqual({
			status: 200,
			body: { topic: { _id: expect.stringMatching(/^[0-9a-f]{24}$/), name: 'Deploy freeze', gid: SEED_GROUP_IDS.incidentRoom } },
		});
		const postmortem = JSON.stringify({ name: 'Postmortem' });
		// Reading only forms, it finds no name in JSON, as such a server would.
		expect(await call('POST', path, token, postmortem, { 'content-type': 'application/json' })).toEqual({
			status: 400,
			body: { code: 'invalid_request', message: 'name is required' },
		});
		const jsonOnly = await bed.call('/__emulator/config', { method: 'PATCH', json: { groupTopicBody: 'json' } });
		expect(jsonOnly.body.groupTopicBody).toBe('json');
		const json = await call('POST', path, token, postmortem, { 'content-type': 'application/json' });
		expect(json).toMatchObject({ status: 200, body: { topic: { name: 'Postmortem', gid: SEED_GROUP_IDS.incidentRoom } } });
		expect((await call('POST', path, token, 'name=Form', { 'content-type': 'application/x-www-form-urlencoded' })).body.message).toBe('name is required');
		expect(bed.emulator.bot.topics.size).toBe(topicsBefore + 2);
		const nonsense = await bed.call('/__emulator/config', { method: 'PATCH', json: { groupTopicBody: 'xml' } });
		expect(nonsense).toMatchObject({ status: 400, body: { message: 'groupTopicBody must be "form" or "json"' } });
		bed.emulator.setConfig({ groupTopicBody: 'form' });

		expect(await call('POST', path, token, 'name=', { 'content-type': 'application/x-www-form-urlencoded' })).toEqual({
			status: 400,
			body: { code: 'invalid_request', message: 'name is required' },
		});
		expect((await call('POST', path, token, 'Deploy', { 'content-type': 'text/plain' })).status).toBe(400);
		expect((await call('POST', path, token, '{bad', { 'content-type': 'application/json' })).body.code).toBe('invalid_request');
		expect(
			(await call('POST', '/bot/v1/groups/000000000000000000000000/topics', token, 'name=x', {
				'content-type': 'application/x-www-form-urlencoded',
			})).body.code,
		).toBe('group_not_found');
		const lounge = await call('POST', `/bot/v1/groups/${SEED_GROUP_IDS.privateLounge}/topics`, token, 'name=x', {
			'content-type': 'application/x-www-form-urlencoded',
		});
		expect(lounge).toMatchObject({ status: 403, body: { code: 'not_in_group' } });

		// A group the bot just created takes topics (its _id is the {group_id}).
		const created = await call('POST', '/bot/v1/groups', token, groupForm({ name: 'New', uids: [SEED_USER_IDS.anan] }));
		const gid = (created.body.group as Json)._id as string;
		expect((await call('POST', `/bot/v1/groups/${gid}/topics`, token, 'name=t', { 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(200);
	});
});

describe('GET /bot/v1/users', () => {
	it('finds users case-insensitively, exact match first, deleted ones included', async () => {
		const token = await newToken();
		const res = await call('GET', '/bot/v1/users?username=SOMCHAI.K', token);
		expect(res.status).toBe(200);
		const users = res.body.users as Json[];
		expect(users.map((u) => [u.username, u.deleted])).toEqual([
			['somchai.k', false],
			['somchai.k.old', true],
		]);
		expect(users[0]).toEqual({
			_id: SEED_USER_IDS.somchai,
			username: 'somchai.k',
			email: 'somchai.k@example.com',
			firstname: 'Somchai',
			lastname: 'Kittisak',
			position: 'Site Reliability Engineer',
			deleted: false,
		});
		expect(((await call('GET', '/bot/v1/users?username=anan', token)).body.users as Json[])[0].position).toBe('');
		expect((await call('GET', '/bot/v1/users?username=zzz', token)).body).toEqual({ users: [] });
		expect(await call('GET', '/bot/v1/users', token)).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
		expect((await call('GET', '/bot/v1/users?username=', token)).status).toBe(400);
	});
});

describe('GET /bot/v2/groups/{gid}/users/{uid}/info', () => {
	it('answers for members of a group the bot is in, 403/404 otherwise', async () => {
		const token = await newToken();
		const info = (gid: string, uid: string) => call('GET', `/bot/v2/groups/${gid}/users/${uid}/info`, token);
		expect(await info(SEED_GROUP_IDS.incidentRoom, SEED_USER_IDS.somchai)).toEqual({
			status: 200,
			body: {
				_id: SEED_USER_IDS.somchai,
				firstname: 'Somchai',
				lastname: 'Kittisak',
				avatar: expect.stringMatching(/^https:\/\//),
				network_admin: true,
			},
		});
		const notInGroup = { status: 403, body: { code: 'not_in_group', message: 'The user and the bot must both be members of the group' } };
		expect(await info(SEED_GROUP_IDS.incidentRoom, SEED_USER_IDS.anan)).toEqual(notInGroup); // user not a member
		expect(await info(SEED_GROUP_IDS.privateLounge, SEED_USER_IDS.anan)).toEqual(notInGroup); // bot not a member
		expect(await info('000000000000000000000000', SEED_USER_IDS.anan)).toMatchObject({ status: 404, body: { code: 'group_not_found' } });
		expect(await info(SEED_GROUP_IDS.incidentRoom, 'nobody')).toMatchObject({ status: 404, body: { code: 'user_not_found' } });
	});
});
