/**
 * Bot resources (Group, Group Topic, User) and the bot credential, executed in
 * n8n-core's real engine against the emulator over HTTP on 127.0.0.1.
 */
import { createHash } from 'node:crypto';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import type { IBinaryData, INodeExecutionData } from 'n8n-workflow';

import { listedUser, SEED_GROUP_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { redactedHeader } from '../../emulator/common/requestLog';
import { CREDENTIALS, suiteTestbed, botCredentialData } from '../../testbed/testbed';

const bed = suiteTestbed();

const U = SEED_USER_IDS;
const G = SEED_GROUP_IDS;
const botRequests = (method?: string) =>
	bed.emulator.log.filter((e) => e.path.startsWith('/bot/') && (!method || e.method === method));
const tokenRequests = () => bed.emulator.log.filter((e) => e.path === '/oauth/token');
const stored = () => bed.credentialsHelper.getStored(CREDENTIALS.bot.id)!.data;

const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(2048, 7)]);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function pictureItem(data: Buffer = PNG, mimeType = 'image/png'): INodeExecutionData {
	return { json: {}, binary: { data: { data: data.toString('base64'), mimeType, fileName: 'incident.png' } as IBinaryData } };
}

describe('bot credential and token', () => {
	it('obtains a token by client credentials (POST /oauth/token, HTTP Basic) and sends it as a Bearer token', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'nattaya.p' });
		expect(run.error).toBeUndefined();

		const [token] = tokenRequests();
		expect(token.method).toBe('POST');
		expect(token.contentType).toBe('application/x-www-form-urlencoded');
		expect(token.body).toEqual({ grant_type: 'client_credentials', scope: 'bot profile' });
		const { clientId, clientSecret } = bed.emulator.credentials;
		expect(token.headers.authorization).toBe(redactedHeader('authorization', `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`));

		const issued = [...bed.emulator.bot.tokens.keys()];
		expect(issued).toHaveLength(1);
		expect(botRequests()[0].headers.authorization).toBe(redactedHeader('authorization', `Bearer ${issued[0]}`));
		// Persisted in the credential (the database in n8n), with its expiry.
		expect(stored().accessToken).toBe(issued[0]);
		expect(Date.parse(String(stored().accessTokenExpiresAt)) - Date.now()).toBeGreaterThan(3500_000);
	});

	it('sends an edited scope', async () => {
		bed.credentialsHelper.set({ ...CREDENTIALS.bot, data: { ...botCredentialData(bed.emulator), scope: 'bot' } });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error).toBeUndefined();
		expect(tokenRequests()[0].body).toEqual({ grant_type: 'client_credentials', scope: 'bot' });
	});

	/** Each token request: its status, how the client was sent, the scope asked for (a service reading the form reads every body). */
	const tokenAttempts = () =>
		tokenRequests().map((e) => {
			const body = e.body as Record<string, string>;
			const client = e.headers.authorization ? 'basic' : body.client_id === undefined ? 'none' : 'form';
			return `${e.status} ${client} ${body.scope}`;
		});

	it("asks for the public pages' scope `bot` once the service refuses the documents' `bot profile`, and uses that token", async () => {
		bed.emulator.setConfig({ tokenScopes: ['bot'] });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ username: 'anan.w' });
		expect(tokenAttempts()).toEqual(['400 basic bot profile', '200 basic bot']);
		expect([...bed.emulator.bot.tokens.values()].map((t) => t.scopes)).toEqual([['bot']]);
	});

	it('sends the client ID and secret as form fields once the service refuses them by HTTP Basic, the secret in no output', async () => {
		bed.emulator.setConfig({ tokenClientAuth: 'form' });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error).toBeUndefined();
		expect(tokenAttempts()).toEqual(['401 basic bot profile', '200 form bot profile']);
		const { clientId, clientSecret } = bed.emulator.credentials;
		expect(tokenRequests()[1].body).toMatchObject({ grant_type: 'client_credentials', client_id: clientId, client_secret: expect.stringMatching(/^\[redacted sha256:/) });
		expect(JSON.stringify(run.result.run.data)).not.toContain(clientSecret);
	});

	it('finds a service that takes both the form fields and `bot` alone in three token requests', async () => {
		bed.emulator.setConfig({ tokenClientAuth: 'form', tokenScopes: ['bot'] });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error).toBeUndefined();
		expect(tokenAttempts()).toEqual(['401 basic bot profile', '400 form bot profile', '200 form bot']);
		expect(botRequests()).toHaveLength(1);
	});

	it('keeps a scope the user typed: its refusal is the answer, with the service\'s words', async () => {
		bed.credentialsHelper.set({ ...CREDENTIALS.bot, data: { ...botCredentialData(bed.emulator), scope: 'bot admin' } });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error?.message).toMatch(/Could not obtain a bot access token: the token endpoint answered 400 \(invalid_scope: Unknown scope: admin\)/);
		expect(tokenAttempts()).toEqual(['400 basic bot admin']);
		expect(botRequests()).toHaveLength(0);
	});

	it('calls the token endpoint once for a 100-item run, and reuses the token in the next run', async () => {
		const items = Array.from({ length: 100 }, (_, n) => ({ json: { username: n % 2 ? 'somchai.k' : 'nattaya.p' } }));
		const run = await bed.runNode(
			{ resource: 'user', operation: 'findByUsername', username: '={{ $json.username }}' },
			{ items },
		);
		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(100);
		expect(botRequests('GET')).toHaveLength(100);
		expect(tokenRequests()).toHaveLength(1);
		expect(bed.emulator.bot.tokenRequests).toBe(1);

		await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(tokenRequests()).toHaveLength(1);
	});

	it('shares one token request among runs that start together without a stored token (a queue-mode worker)', async () => {
		const runs = await Promise.all(
			['nattaya.p', 'somchai.k', 'anan.w', 'pimchanok.s'].map((username) =>
				bed.runNode({ resource: 'user', operation: 'findByUsername', username }),
			),
		);
		for (const run of runs) expect(run.error).toBeUndefined();
		expect(tokenRequests()).toHaveLength(1);
		expect(botRequests('GET')).toHaveLength(4);
		// One token was issued, and every run's request was accepted with it.
		expect(bed.emulator.bot.tokens.size).toBe(1);
		expect(botRequests('GET').map((e) => e.status)).toEqual([200, 200, 200, 200]);
	});

	it('refreshes a token the service expired, once, and the request succeeds', async () => {
		await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		const first = stored().accessToken;
		bed.emulator.expireBotTokens();
		bed.emulator.clearLog();

		const run = await bed.runNode({ resource: 'user', operation: 'getInfoInGroup', groupId: G.incidentRoom, userId: U.nattaya });
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ _id: U.nattaya, firstname: 'Nattaya' });
		expect(bed.emulator.log.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
			`GET /bot/v2/groups/${G.incidentRoom}/users/${U.nattaya}/info 401`,
			'POST /oauth/token 200',
			`GET /bot/v2/groups/${G.incidentRoom}/users/${U.nattaya}/info 200`,
		]);
		expect(stored().accessToken).not.toBe(first);
		// The transport empties the expirable field to have n8n fetch (one request for the whole run), rather than n8n's own refresh after a thrown 401.
		expect(bed.credentialsHelper.events.filter((e) => e.kind === 'preAuthentication')).toHaveLength(2);
	});

	it('resends a multipart create once after the refresh, with the body built again', async () => {
		await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		bed.emulator.expireBotTokens();
		bed.emulator.clearLog();

		const run = await bed.runNode(
			{ resource: 'group', operation: 'create', name: 'War Room', members: U.somchai, pictureBinaryProperty: 'data' },
			{ items: [pictureItem()] },
		);
		expect(run.error).toBeUndefined();
		expect(bed.emulator.log.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
			'POST /bot/v1/groups 401',
			'POST /oauth/token 200',
			'POST /bot/v1/groups 200',
		]);
		const sent = bed.emulator.log[2].parts!;
		expect(sent.map((p) => p.name)).toEqual(['name', 'uids[]', 'file']);
		expect(sent[2]).toMatchObject({ size: PNG.length, sha256: sha256(PNG) });
		expect([...bed.emulator.bot.groups.values()].filter((g) => g.name === 'War Room')).toHaveLength(1);
	});

	it('refreshes by time: a token past its expires_in is replaced before any request fails', async () => {
		bed.emulator.setConfig({ tokenTtlSeconds: 1 });
		await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(tokenRequests()).toHaveLength(1);
		await new Promise((resolve) => setTimeout(resolve, 1100));
		bed.emulator.clearLog();

		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error).toBeUndefined();
		expect(bed.emulator.log.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
			'POST /oauth/token 200',
			'GET /bot/v1/users 200',
		]);
	});

	it.each([1e13, 1e300])('takes a token whose expires_in is %s seconds (past any date) and keeps it until a 401, instead of failing "Invalid time value" (issue 23, item 11)', async (ttl) => {
		bed.emulator.setConfig({ tokenTtlSeconds: ttl });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error).toBeUndefined();
		expect(bed.emulator.log.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual(['POST /oauth/token 200', 'GET /bot/v1/users 200']);
		// The token is kept: the next run asks for none.
		bed.emulator.clearLog();
		expect((await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' })).error).toBeUndefined();
		expect(tokenRequests()).toHaveLength(0);
	});

	it('reports a 401 that persists after the refresh as a NodeApiError, without secrets', async () => {
		bed.emulator.faults.add({ method: 'GET', path: '/bot/v1/users', times: 2, action: { kind: 'status', status: 401, body: { code: 'unauthorized', message: 'Bot disabled' } } });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('401');
		expect(run.error?.message).toMatch(/rejected the credentials: Bot disabled/);
		expect(botRequests()).toHaveLength(2);
		expect(tokenRequests()).toHaveLength(2);
	});

	it('says clearly when no token can be obtained, without the secret, and sends no bot request', async () => {
		bed.credentialsHelper.set({ ...CREDENTIALS.bot, data: { ...botCredentialData(bed.emulator), clientSecret: 'wrong-secret-xyz' } });
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		expect(run.error?.message).toMatch(/Could not obtain a bot access token: the service rejected the client ID or client secret \(invalid_client/);
		expect(JSON.stringify(run.result.run.data.resultData)).not.toContain('wrong-secret-xyz');
		expect(JSON.stringify(run.result.run.data.resultData)).not.toContain(Buffer.from(`${bed.emulator.credentials.clientId}:wrong-secret-xyz`).toString('base64'));
		expect(botRequests()).toHaveLength(0);
		// Refused by HTTP Basic, then sent without it (as form fields): the second answer is the one told.
		expect(tokenRequests().map((e) => `${e.status} ${e.headers.authorization ? 'basic' : 'no Authorization header'}`)).toEqual(['401 basic', '401 no Authorization header']);
	});

	it('passes its test by obtaining a token', async () => {
		await expect(bed.testCredential(CREDENTIALS.bot.id)).resolves.toMatchObject({ status: 'OK' });
		expect(tokenRequests()).toHaveLength(1);
		expect(botRequests('GET')[0].headers.authorization).toBe(redactedHeader('authorization', `Bearer ${[...bed.emulator.bot.tokens.keys()][0]}`));
	});

	it('passes its test on a service that takes the form fields and `bot` alone, as a run finds it', async () => {
		bed.emulator.setConfig({ tokenClientAuth: 'form', tokenScopes: ['bot'] });
		await expect(bed.testCredential(CREDENTIALS.bot.id)).resolves.toMatchObject({ status: 'OK' });
		expect(tokenAttempts()).toEqual(['401 basic bot profile', '400 form bot profile', '200 form bot']);
	});

	it('fetches a new token for every test, even with one stored', async () => {
		await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w' });
		await expect(bed.testCredential(CREDENTIALS.bot.id)).resolves.toMatchObject({ status: 'OK' });
		expect(tokenRequests()).toHaveLength(2);
	});

	it('fails its test with a wrong secret', async () => {
		bed.credentialsHelper.set({ ...CREDENTIALS.bot, data: { ...botCredentialData(bed.emulator), clientSecret: 'nope' } });
		const result = await bed.testCredential(CREDENTIALS.bot.id);
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/rejected the client ID or client secret/);
	});
});

describe('Group → Create', () => {
	it('sends name and repeated uids[] parts, and outputs the group object', async () => {
		const run = await bed.runNode({
			resource: 'group',
			operation: 'create',
			name: 'Incident 4711',
			members: `${U.somchai}, ${U.nattaya},${U.pimchanok}`,
		});
		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(1);
		expect(run.json[0]).toMatchObject({
			name: 'Incident 4711',
			type: 'group_chatv2',
			userCount: 4,
			settings: expect.objectContaining({ isPrivate: true }),
		});
		expect(typeof run.json[0]._id).toBe('string');
		expect(run.json[0].group).toBeUndefined();

		const [sent] = botRequests('POST');
		expect(sent.path).toBe('/bot/v1/groups');
		expect(sent.contentType).toMatch(/^multipart\/form-data; boundary=/);
		expect(sent.headers['content-length']).toBeDefined();
		expect(sent.headers['transfer-encoding']).toBeUndefined();
		expect(sent.parts).toEqual([
			{ name: 'name', size: 13, value: 'Incident 4711' },
			{ name: 'uids[]', size: 24, value: U.somchai },
			{ name: 'uids[]', size: 24, value: U.nattaya },
			{ name: 'uids[]', size: 24, value: U.pimchanok },
		]);
	});

	it('takes the members as a list from an expression', async () => {
		const run = await bed.runNode(
			{ resource: 'group', operation: 'create', name: 'From list', members: '={{ $json.ids }}' },
			{ items: [{ json: { ids: [U.anan, U.arthit] } }] },
		);
		expect(run.error).toBeUndefined();
		expect(botRequests('POST')[0].parts!.filter((p) => p.name === 'uids[]').map((p) => p.value)).toEqual([U.anan, U.arthit]);
	});

	it('sends the picture from a binary property as the file part', async () => {
		const run = await bed.runNode(
			{ resource: 'group', operation: 'create', name: 'With picture', members: U.somchai, pictureBinaryProperty: 'data' },
			{ items: [pictureItem()] },
		);
		expect(run.error).toBeUndefined();
		const parts = botRequests('POST')[0].parts!;
		expect(parts[2]).toEqual({
			name: 'file',
			filename: 'incident.png',
			contentType: 'image/png',
			size: PNG.length,
			sha256: sha256(PNG),
		});
		const group = bed.emulator.bot.groups.get(run.json[0]._id as string);
		expect(group?.picture).toMatchObject({ size: PNG.length, sha256: sha256(PNG) });
	});

	it('streams a picture kept on disk (filesystem binary mode) with its known length', async () => {
		// The next test starts in the suite's (in-memory) mode again: the bed sets it before each test.
		await bed.setBinaryMode('filesystem');
		const big = Buffer.concat([PNG, Buffer.alloc(3 * 1024 * 1024, 1)]);
		const binary = await Container.get(BinaryDataService).store(
			{ type: 'execution', workflowId: 'harness-workflow', executionId: 'seed' },
			big,
			{ data: '', mimeType: 'image/png', fileName: 'large.png' } as IBinaryData,
		);
		expect(binary.id).toMatch(/^filesystem/);
		const run = await bed.runNode(
			{ resource: 'group', operation: 'create', name: 'Large picture', members: U.somchai, pictureBinaryProperty: 'data' },
			{ items: [{ json: {}, binary: { data: binary } }] },
		);
		expect(run.error).toBeUndefined();
		const [sent] = botRequests('POST');
		expect(sent.parts![2]).toMatchObject({ name: 'file', filename: 'large.png', size: big.length, sha256: sha256(big) });
		expect(Number(sent.headers['content-length'])).toBeGreaterThan(big.length);
	});

	it.each([
		['a blank name', { name: '={{ "  " }}' }, /"Name" in item 0: is required/],
		['no member', { members: '={{ "" }}' }, /"Member IDs" in item 0: at least one user ID is required/],
		['an empty member list', { members: '={{ [] }}' }, /"Member IDs" in item 0: at least one user ID is required/],
		['a member with spaces', { members: '={{ "a b" }}' }, /"Member IDs" in item 0: "a b" is not one ID/],
		['a member that is not text', { members: '={{ [{ id: 1 }] }}' }, /"Member IDs" in item 0: expected user IDs/],
		['a missing binary property', { pictureBinaryProperty: 'nothing' }, /nothing/],
	])('rejects %s before any request', async (_label, override, message) => {
		const run = await bed.runNode({ resource: 'group', operation: 'create', name: 'Valid', members: U.somchai, ...override });
		expect(run.error?.message).toMatch(message);
		expect(run.error?.name).toBe('NodeOperationError');
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('rejects a picture that is not an image before any request', async () => {
		const run = await bed.runNode(
			{ resource: 'group', operation: 'create', name: 'Valid', members: U.somchai, pictureBinaryProperty: 'data' },
			{ items: [pictureItem(Buffer.from('%PDF-1.7'), 'application/pdf')] },
		);
		expect(run.error?.message).toMatch(/"Picture \(Binary Property\)" in item 0: must be an image, got application\/pdf/);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('shows the service\'s error for an unknown member, and is not resent', async () => {
		const run = await bed.runNode({ resource: 'group', operation: 'create', name: 'Ghost', members: '000000000000000000000000' });
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('404');
		expect(run.error?.message).toBe('Not found: User 000000000000000000000000 not found');
		expect(run.error?.description).toContain('Service code: user_not_found');
	});

	it('does not resend a create after a 503 (not idempotent)', async () => {
		bed.emulator.faults.add({ method: 'POST', path: '/bot/v1/groups', action: { kind: 'status', status: 503 } });
		const run = await bed.runNode({ resource: 'group', operation: 'create', name: 'Once', members: U.somchai });
		expect(run.error?.httpCode).toBe('503');
		expect(botRequests('POST')).toHaveLength(1);
	});
});

describe('Group Topic → Create', () => {
	it('sends the name form-encoded, as in the document\'s sample, and outputs the topic', async () => {
		const run = await bed.runNode({ resource: 'groupTopic', operation: 'create', groupId: G.incidentRoom, name: 'Timeline & notes' });
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([{ _id: expect.any(String), name: 'Timeline & notes', gid: G.incidentRoom }]);
		const [sent] = botRequests('POST');
		expect(sent.path).toBe(`/bot/v1/groups/${G.incidentRoom}/topics`);
		expect(sent.contentType).toBe('application/x-www-form-urlencoded');
		expect(sent.body).toEqual({ name: 'Timeline & notes' });
	});

	it('a service reading JSON only (the body it declares) refuses the form: asked once more as JSON, the topic is made once', async () => {
		bed.emulator.setConfig({ groupTopicBody: 'json' });
		const before = bed.emulator.bot.topics.size;
		const run = await bed.runNode({ resource: 'groupTopic', operation: 'create', groupId: G.incidentRoom, name: 'Timeline & notes' });
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([{ _id: expect.any(String), name: 'Timeline & notes', gid: G.incidentRoom }]);
		expect(botRequests('POST').map((e) => `${e.contentType} ${e.status}`)).toEqual(['application/x-www-form-urlencoded 400', 'application/json 200']);
		expect(botRequests('POST')[1].body).toEqual({ name: 'Timeline & notes' });
		expect(bed.emulator.bot.topics.size).toBe(before + 1);
	});

	it('refused both ways, the item fails with the second refusal, and the first follows in its description', async () => {
		bed.emulator.faults.add({ method: 'POST', path: `/bot/v1/groups/${G.incidentRoom}/topics`, action: { kind: 'status', status: 422, body: { code: 'invalid_request', message: 'name is too long' } } });
		const run = await bed.runNode({ resource: 'groupTopic', operation: 'create', groupId: G.incidentRoom, name: 'x' });
		expect(run.error?.httpCode).toBe('400');
		expect(run.error?.message).toMatch(/name is required/);
		expect(run.error?.description).toMatch(/It was asked first another way, and the service refused that too: .*name is too long/);
		expect(botRequests('POST').map((e) => e.status)).toEqual([422, 400]);
	});

	it('works with the id of a group created just before', async () => {
		const created = await bed.runNode({ resource: 'group', operation: 'create', name: 'New', members: U.somchai });
		const gid = created.json[0]._id as string;
		const run = await bed.runNode({ resource: 'groupTopic', operation: 'create', groupId: gid, name: 'Actions' });
		expect(run.json[0]).toMatchObject({ gid, name: 'Actions' });
	});

	it('says the bot is not a member of a group it is not in', async () => {
		const run = await bed.runNode({ resource: 'groupTopic', operation: 'create', groupId: G.privateLounge, name: 'x' });
		expect(run.error?.httpCode).toBe('403');
		expect(run.error?.message).toMatch(/^The bot is not a member of group 64b7f0a1c2d3e4f5a6b7d002/);
		// Not a refusal of the body: not asked again.
		expect(botRequests('POST')).toHaveLength(1);
	});

	it.each([
		['a blank group id', { groupId: '={{ "" }}' }, /"Group ID" in item 0: is required/],
		['a group id with a path in it', { groupId: '={{ "x/../y z" }}' }, /"Group ID" in item 0: must not contain "\/": it goes into the request path/],
		['a group id with a space', { groupId: '={{ "y z" }}' }, /"Group ID" in item 0: must not contain spaces or other whitespace/],
		['a group id of dots', { groupId: '={{ ".." }}' }, /"Group ID" in item 0: must be an ID, not only dots/],
		['a blank name', { name: '={{ "" }}' }, /"Name" in item 0: is required/],
	])('rejects %s before any request', async (_label, override, message) => {
		const run = await bed.runNode({ resource: 'groupTopic', operation: 'create', groupId: G.incidentRoom, name: 'ok', ...override });
		expect(run.error?.message).toMatch(message);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('sends a path-safe id percent-encoded inside its one path segment', async () => {
		const run = await bed.runNode({ resource: 'groupTopic', operation: 'create', groupId: '={{ "a:b@c" }}', name: 'x' });
		expect(run.error?.httpCode).toBe('404');
		expect(botRequests('POST')[0].rawUrl).toBe('/bot/v1/groups/a%3Ab%40c/topics');
	});
});

describe('User → Find by Username', () => {
	it('outputs one item per user, leaving out deleted users by default', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'somchai' });
		expect(run.error).toBeUndefined();
		expect(run.json.map((u) => u.username)).toEqual(['somchai.k']);
		// The user as the service listed it, field for field.
		expect(run.json[0]).toEqual(listedUser(bed.emulator.bot.users.get(U.somchai)!));
		expect(botRequests('GET')[0].query).toEqual({ username: 'somchai' });
	});

	it('includes deleted users when asked', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'somchai', options: { excludeDeleted: false } });
		expect(run.json.map((u) => [u.username, u.deleted])).toEqual([
			['somchai.k', false],
			['somchai.k.old', true],
		]);
	});

	it('keeps exact matches only when asked', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'Somchai.K', options: { excludeDeleted: false, exactMatch: true } });
		expect(run.json.map((u) => u.username)).toEqual(['somchai.k']);
	});

	it('outputs nothing for a username nobody has, and pairs items to their inputs', async () => {
		const run = await bed.runNode(
			{ resource: 'user', operation: 'findByUsername', username: '={{ $json.u }}' },
			{ items: [{ json: { u: 'nobody.here' } }, { json: { u: 'anan.w' } }] },
		);
		expect(run.json.map((u) => u.username)).toEqual(['anan.w']);
		expect(run.items[0].pairedItem).toEqual({ item: 1 });
	});

	it('rejects a blank username before any request', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: '={{ " " }}' });
		expect(run.error?.message).toMatch(/"Username" in item 0: is required/);
		expect(bed.emulator.log).toHaveLength(0);
	});
});

describe('User → Get Info in Group', () => {
	it('reads the info of a member of a group the bot is in (v2)', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'getInfoInGroup', groupId: G.incidentRoom, userId: U.somchai });
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([
			{
				_id: U.somchai,
				firstname: 'Somchai',
				lastname: 'Kittisak',
				avatar: expect.stringMatching(/^https:\/\//),
				network_admin: true,
			},
		]);
		expect(botRequests('GET')[0].path).toBe(`/bot/v2/groups/${G.incidentRoom}/users/${U.somchai}/info`);
	});

	it('says so when the user is not in the group', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'getInfoInGroup', groupId: G.incidentRoom, userId: U.arthit });
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('403');
		expect(run.error?.message).toBe(
			`No info: user ${U.arthit} and the bot must both be members of group ${G.incidentRoom}, and at least one of them is not (the service said: The user and the bot must both be members of the group)`,
		);
	});

	it('says so when the bot is not in the group', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'getInfoInGroup', groupId: G.privateLounge, userId: U.somchai });
		expect(run.error?.httpCode).toBe('403');
		expect(run.error?.message).toMatch(/must both be members of group 64b7f0a1c2d3e4f5a6b7d002/);
	});

	it('gives every failed item its own error with Continue On Fail', async () => {
		const run = await bed.runNode(
			{ resource: 'user', operation: 'getInfoInGroup', groupId: '={{ $json.g }}', userId: '={{ $json.u }}' },
			{
				continueOnFail: true,
				items: [
					{ json: { g: G.incidentRoom, u: U.nattaya } },
					{ json: { g: G.incidentRoom, u: '' } },
					{ json: { g: 'missing', u: U.nattaya } },
				],
			},
		);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(run.json[0]).toMatchObject({ _id: U.nattaya });
		expect(run.json[1].error).toMatch(/"User ID" in item 1: is required/);
		expect(run.json[2]).toMatchObject({ httpCode: '404' });
		expect(String(run.json[2].error)).toMatch(/group or the user was not found/);
	});
});
