/**
 * Workplace Trigger: real HTTP requests with real-shaped events (a POST of
 * { events: [...] }, each with type, replyToken, source, timestamp) reach the
 * node's webhook() in n8n-core's WebhookContext, their bytes read and parsed
 * as n8n 2.41's webhook server does; returned items start executions in the
 * real engine (here: trigger → Switch on the postback data). Calls are signed
 * as the service signs them: X-Eko-Signature, HMAC of the body keyed with the
 * bot credential's client secret.
 */
import { createHash, createHmac } from 'node:crypto';
import { gzipSync } from 'node:zlib';

import type { IDataObject, INode, INodeCredentials, INodeParameters } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import type { WorkflowJson } from '../../testbed/engine';
import { assertNoSecrets, botCredentialData, capturedLogs, CREDENTIALS, suiteTestbed } from '../../testbed/testbed';
import type { WebhookServer } from '../../testbed/webhookServer';
import { triggerItem } from '../triggerItem';

const bed = suiteTestbed();
let clientSecret: string;
const servers: WebhookServer[] = [];

beforeAll(async () => {
	clientSecret = bed.emulator.credentials.clientSecret;
});
afterEach(async () => {
	await Promise.all(servers.splice(0).map((s) => s.close()));
});

const TRIGGER_TYPE = 'n8n-nodes-workplace.workplaceTrigger';
/** Events are dated now (to the second), inside the trigger's replay window. */
const T0 = Math.floor(Date.now() / 1000) * 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const GID = '64b7f0a1c2d3e4f5a6b7d001';
const source = (uid: string) => ({ type: 'group', uid, gid: GID });
const postback = (data: string, text?: string): IDataObject => ({
	type: 'postback',
	replyToken: `rt-${data}`,
	source: source('64b7f0a1c2d3e4f5a6b7c801'),
	timestamp: T0,
	postback: text === undefined ? { data } : { data, text },
});
const message: IDataObject = {
	type: 'message',
	replyToken: 'rt-msg',
	source: source('64b7f0a1c2d3e4f5a6b7c803'),
	timestamp: iso(T0 + 100),
	message: { id: 'msg-1', type: 'text', groupId: GID, topicId: 'topic-9', text: 'ระบบล่มไหม? Is the API down?' },
};
// The old pages' join: source.userId, epoch seconds.
const join: IDataObject = { type: 'join', replyToken: 'rt-join', source: { type: 'direct_chat', userId: '64b7f0a1c2d3e4f5a6b7c800' }, timestamp: T0 / 1000 };
const unknown: IDataObject = { type: 'memberLeft', source: source('64b7f0a1c2d3e4f5a6b7c806'), timestamp: T0 + 300, left: { uid: 'x' } };

function switchOnData(): INodeParameters {
	const rule = (value: string) => ({
		conditions: {
			options: { caseSensitive: true, leftValue: '', typeValidation: 'strict' },
			conditions: [{ leftValue: '={{ $json.data }}', rightValue: value, operator: { type: 'string', operation: 'equals' } }],
			combinator: 'and',
		},
	});
	return { mode: 'rules', rules: { values: [rule('ack'), rule('escalate')] }, options: { fallbackOutput: 'extra' } };
}

const BOT: INodeCredentials = { workplaceBotApi: { id: CREDENTIALS.bot.id, name: CREDENTIALS.bot.name } };

function workflow(trigger: INodeParameters, options: { version?: number; credentials?: INodeCredentials | null } = {}): WorkflowJson {
	const credentials = options.credentials === undefined ? BOT : options.credentials ?? undefined;
	return {
		name: 'trigger test',
		nodes: [
			{
				id: 'trig',
				name: 'Workplace Trigger',
				type: TRIGGER_TYPE,
				typeVersion: options.version ?? 2,
				position: [0, 0],
				parameters: trigger,
				webhookId: 'wh-1',
				...(credentials ? { credentials } : {}),
			},
			{ id: 'sw', name: 'Switch', type: 'n8n-nodes-base.switch', typeVersion: 3.2, position: [200, 0], parameters: switchOnData() },
		],
		connections: { 'Workplace Trigger': { main: [[{ node: 'Switch', type: 'main', index: 0 }]] } },
	};
}

async function start(trigger: INodeParameters = {}, options: Parameters<typeof workflow>[1] & { activate?: boolean } = {}) {
	const json = workflow(trigger, options);
	const server = await bed.startWebhook(json, 'Workplace Trigger', { activate: options.activate });
	servers.push(server);
	return Object.assign(server, { json });
}

type Algorithm = 'sha256' | 'sha1';
const hmac = (algorithm: Algorithm, bytes: Buffer | string, key = clientSecret) => createHmac(algorithm, key).update(bytes).digest();
/** What the service sends: base64 of HMAC-SHA256 over the bytes, keyed with the client secret. */
const sign = (bytes: Buffer | string, key?: string) => hmac('sha256', bytes, key).toString('base64');

interface Call {
	/** The exact bytes sent; default: the compact JSON of the body, as the service's axios sends it. */
	raw?: Buffer | string;
	/** X-Eko-Signature; default: sign(raw). `null` sends none. */
	signature?: string | null;
	headers?: Record<string, string>;
}

async function post(server: WebhookServer, body: unknown, call: Call = {}) {
	const raw = call.raw ?? JSON.stringify(body);
	const signature = call.signature === undefined ? sign(raw) : call.signature;
	const res = await fetch(`${server.url}/webhook/wh-1/webhook`, {
		method: 'POST',
		headers: {
			// As the service's sender (an axios client) writes it.
			'content-type': 'application/json;charset=utf-8',
			...(signature === null ? {} : { 'x-eko-signature': signature }),
			...call.headers,
		},
		body: raw,
	});
	const text = await res.text();
	await server.settled();
	return { status: res.status, body: text ? (JSON.parse(text) as IDataObject) : undefined };
}

/** Version 2's item for an event, as the tests expect it field by field. */
const item = triggerItem;

describe('Workplace Trigger', () => {
	it('answers 200 to a signed batch of 3 and emits one normalised item per event, the event kept whole', async () => {
		const server = await start();
		const res = await post(server, { events: [postback('ack', 'Acknowledged'), message, join] });
		expect(res).toEqual({ status: 200, body: { received: 3, accepted: 3 } });
		expect(server.executions).toHaveLength(1);
		const [run] = server.executions;
		expect(run.status).toBe('success');
		expect(run.json('Workplace Trigger')).toEqual([
			item(postback('ack', 'Acknowledged'), {
				userId: '64b7f0a1c2d3e4f5a6b7c801',
				sourceType: 'group',
				groupId: GID,
				data: 'ack',
				postbackText: 'Acknowledged',
				timestamp: iso(T0),
				timestampMs: T0,
			}),
			item(message, {
				userId: '64b7f0a1c2d3e4f5a6b7c803',
				sourceType: 'group',
				groupId: GID,
				topicId: 'topic-9',
				messageId: 'msg-1',
				messageType: 'text',
				text: 'ระบบล่มไหม? Is the API down?',
				timestamp: iso(T0 + 100),
				timestampMs: T0 + 100,
			}),
			item(join, {
				userId: '64b7f0a1c2d3e4f5a6b7c800',
				sourceType: 'direct_chat',
				timestamp: iso(T0),
				timestampMs: T0,
			}),
		]);
	});

	it('exposes the postback data at the top level, so a Switch node routes on it', async () => {
		const server = await start();
		await post(server, { events: [postback('escalate'), postback('ack'), message, postback('other')] });
		const [run] = server.executions;
		expect(run.json('Switch', 0).map((i) => i.replyToken)).toEqual(['rt-ack']);
		expect(run.json('Switch', 1).map((i) => i.replyToken)).toEqual(['rt-escalate']);
		expect(run.json('Switch', 2).map((i) => i.replyToken)).toEqual(['rt-msg', 'rt-other']);
	});

	it('filters by event type', async () => {
		const server = await start({ events: ['postback'] });
		const res = await post(server, { events: [message, postback('ack'), join, unknown] });
		expect(res.body).toEqual({ received: 4, accepted: 1 });
		expect(server.executions[0].json('Workplace Trigger').map((i) => i.type)).toEqual(['postback']);
	});

	it('filters by several types', async () => {
		const server = await start({ events: ['message', 'join'] });
		await post(server, { events: [message, postback('ack'), join] });
		expect(server.executions[0].json('Workplace Trigger').map((i) => i.type)).toEqual(['message', 'join']);
	});

	it('passes an unknown event type with all events, its type and its fields kept', async () => {
		const server = await start({ events: ['*'] });
		await post(server, { events: [unknown] });
		expect(server.executions[0].json('Workplace Trigger')).toEqual([
			item(unknown, { userId: '64b7f0a1c2d3e4f5a6b7c806', sourceType: 'group', groupId: GID, timestamp: iso(T0 + 300), timestampMs: T0 + 300 }),
		]);
	});

	it('answers 200 and starts nothing when no event passes the filter, or the batch is empty', async () => {
		const server = await start({ events: ['join'] });
		expect(await post(server, { events: [message] })).toEqual({ status: 200, body: { received: 1, accepted: 0 } });
		expect(await post(server, { events: [] })).toEqual({ status: 200, body: { received: 0, accepted: 0 } });
		expect(server.executions).toHaveLength(0);
	});

	it('answers 400 to a signed body without an events array, and starts nothing', async () => {
		const server = await start();
		expect((await post(server, { event: postback('ack') })).status).toBe(400);
		expect((await post(server, [postback('ack')])).status).toBe(400);
		expect(server.executions).toHaveLength(0);
	});

	describe('signature', () => {
		const body = { events: [postback('ack', 'Acknowledged'), message] };
		const compact = JSON.stringify(body);
		// The same JSON as a proxy might re-indent it: only JSON.stringify(req.body) is compact again.
		const pretty = JSON.stringify(body, null, 2);

		it.each<[string, () => Call]>([
			['base64 HMAC-SHA256 of the raw bytes (the service)', () => ({ signature: sign(compact) })],
			['hex HMAC-SHA256 of the raw bytes', () => ({ signature: hmac('sha256', compact).toString('hex') })],
			['hex in upper case', () => ({ signature: hmac('sha256', compact).toString('hex').toUpperCase() })],
			['a sha256= prefix and spaces', () => ({ signature: ` sha256=${sign(compact)} ` })],
			['HMAC-SHA256 of the compact re-serialisation of a re-indented body', () => ({ raw: pretty, signature: sign(compact) })],
			['hex HMAC-SHA256 of the re-serialisation', () => ({ raw: pretty, signature: hmac('sha256', compact).toString('hex') })],
			['HMAC-SHA1, hex, sha1= prefix', () => ({ signature: `sha1=${hmac('sha1', compact).toString('hex')}` })],
			['HMAC-SHA1, base64, of the re-serialisation', () => ({ raw: pretty, signature: hmac('sha1', compact).toString('base64') })],
			['a gzipped delivery, signed over the JSON it carries', () => ({ raw: gzipSync(compact), signature: sign(compact), headers: { 'content-encoding': 'gzip' } })],
			['content type without charset', () => ({ headers: { 'content-type': 'application/json' } })],
		])('accepts %s and starts an execution', async (_label, call) => {
			const server = await start();
			const res = await post(server, body, call());
			expect(res).toEqual({ status: 200, body: { received: 2, accepted: 2 } });
			expect(server.executions).toHaveLength(1);
			expect(server.executions[0].json('Workplace Trigger').map((i) => [i.replyToken, i.verified])).toEqual([
				['rt-ack', true],
				['rt-msg', true],
			]);
		});

		const tampered = JSON.stringify({ events: [postback('escalate', 'Acknowledged'), message] });
		it.each<[string, () => Call, string]>([
			['no signature', () => ({ signature: null }), 'Missing X-Eko-Signature'],
			['an empty signature', () => ({ signature: '' }), 'Missing X-Eko-Signature'],
			['a prefix alone', () => ({ signature: 'sha256=' }), 'Missing X-Eko-Signature'],
			['a signature made with another secret', () => ({ signature: sign(compact, `${clientSecret}x`) }), 'Invalid X-Eko-Signature'],
			['a tampered body under the original signature', () => ({ raw: tampered, signature: sign(compact) }), 'Invalid X-Eko-Signature'],
			['a signature of another body', () => ({ signature: sign(tampered) }), 'Invalid X-Eko-Signature'],
			['a plain SHA-256 of the body, no key', () => ({ signature: createHash('sha256').update(compact).digest('base64') }), 'Invalid X-Eko-Signature'],
			['the client secret itself as the signature', () => ({ signature: clientSecret }), 'Invalid X-Eko-Signature'],
			['the signature in another header', () => ({ signature: null, headers: { 'x-signature': sign(compact) } }), 'Missing X-Eko-Signature'],
			['the old shared-secret header', () => ({ signature: null, headers: { 'x-webhook-secret': 'whsec-7f3a9c2e1b' } }), 'Missing X-Eko-Signature'],
		])('answers 401 to %s, starts nothing and logs nothing of the body', async (_label, call, said) => {
			const server = await start();
			capturedLogs.length = 0;
			const res = await post(server, body, call());
			expect(res).toEqual({ status: 401, body: { message: said } });
			expect(server.executions).toHaveLength(0);
			expect(server.calls[0].result).toEqual({ noWebhookResponse: true });
			// The refusal is logged, by reason only.
			expect(capturedLogs.map((l) => l.message)).toContainEqual(expect.stringMatching(/refused a call: signature (missing|mismatch)$/));
			const logged = JSON.stringify(capturedLogs);
			for (const piece of ['rt-ack', 'rt-escalate', 'Acknowledged', 'Is the API down', clientSecret]) expect(logged).not.toContain(piece);
		});

		it('checks the bytes n8n read even for a content type it does not parse (version 2)', async () => {
			const server = await start();
			const headers = { 'content-type': 'application/octet-stream' };
			// Signed right: the signature holds, and the unparsed body is no events array.
			expect((await post(server, body, { headers })).status).toBe(400);
			expect((await post(server, body, { headers, signature: sign(tampered) })).status).toBe(401);
			expect(server.executions).toHaveLength(0);
		});

		it('uses the credential\'s Webhook Secret instead of the client secret when it is set', async () => {
			const webhookSecret = 'whsec-bot-0b6c2d5e9f';
			bed.credentialsHelper.set({
				type: 'workplaceBotApi',
				id: 'cred-bot-whsec',
				name: 'Workplace Bot (webhook secret)',
				data: { ...botCredentialData(bed.emulator), webhookSecret },
			});
			const server = await start({}, { credentials: { workplaceBotApi: { id: 'cred-bot-whsec', name: 'Workplace Bot (webhook secret)' } } });
			expect((await post(server, body, { signature: sign(compact, webhookSecret) })).status).toBe(200);
			expect((await post(server, body, { signature: sign(compact) })).status).toBe(401);
			expect(server.executions).toHaveLength(1);
			assertNoSecrets([server.executions[0].run.data, capturedLogs, server.json], [webhookSecret, ...bed.secrets]);
		});

		it('puts no secret in the output, the errors, the logs, or the saved workflow\'s node parameters', async () => {
			const server = await start();
			capturedLogs.length = 0;
			expect((await post(server, body)).status).toBe(200);
			expect((await post(server, body, { signature: sign(compact, 'not-the-secret') })).status).toBe(401);
			const [run] = server.executions;
			assertNoSecrets([run.run.data, server.calls, capturedLogs], bed.secrets);
			// The node as n8n saves it: its parameters, defaults filled in, hold no secret;
			// the credential is a reference (id and name) only.
			const node = server.json.nodes[0];
			expect(node.parameters).toEqual({ notice: '', events: ['*'], verifySignature: true, replayWindowMinutes: 5 });
			assertNoSecrets(server.json, bed.secrets);
			// No parameter of either version can hold one.
			const trigger = bed.nodeType(TRIGGER_TYPE, 2);
			for (const version of [1, 2]) {
				for (const property of bed.nodeType(TRIGGER_TYPE, version).description.properties) {
					expect(property.typeOptions?.password).toBeUndefined();
					expect(property.name).not.toMatch(/secret|password|token/i);
				}
			}
			expect(trigger.description.credentials).toEqual([expect.objectContaining({ name: 'workplaceBotApi', required: true })]);
		});
	});

	describe('the emulator playing a user (POST /__emulator/events)', () => {
		async function play(request: IDataObject) {
			const res = await bed.call<IDataObject & { status: number; replyToken: string }>('/__emulator/events', { method: 'POST', json: request });
			expect(res.status).toBe(200);
			return res.body;
		}

		it('delivers signed message, postback and join events that start executions; wrong and missing signatures start nothing', async () => {
			const server = await start();
			const url = `${server.url}/webhook/wh-1/webhook`;
			const said = await play({ url, type: 'message', text: 'Is the API down?', sourceStyle: 'gw' });
			const tapped = await play({ url, type: 'postback', data: 'escalate' });
			const joined = await play({ url, type: 'join' });
			const wrong = await play({ url, type: 'postback', data: 'ack', signature: 'wrong' });
			const unsigned = await play({ url, type: 'postback', data: 'ack', signature: 'none' });
			await server.settled();
			expect([said, tapped, joined, wrong, unsigned].map((d) => d.status)).toEqual([200, 200, 200, 401, 401]);

			// One execution per delivery; ordered as played (each may finish in any order).
			const order = ['message', 'postback', 'join'];
			const runs = [...server.executions].sort(
				(x, y) => order.indexOf(String(x.json('Workplace Trigger')[0].type)) - order.indexOf(String(y.json('Workplace Trigger')[0].type)),
			);
			const items = runs.map((e) => e.json('Workplace Trigger')[0]);
			expect(items.map((i) => [i.type, i.replyToken, i.verified])).toEqual([
				['message', said.replyToken, true],
				['postback', tapped.replyToken, true],
				['join', joined.replyToken, true],
			]);
			// The old pages' source (userId, username) and the new pages' (uid) read alike.
			expect(items.map((i) => i.userId)).toEqual([expect.any(String), expect.any(String), expect.any(String)]);
			expect(items[0]).toMatchObject({ text: 'Is the API down?', messageType: 'text', username: expect.any(String), timestamp: expect.any(String) });
			expect(items[1]).toMatchObject({ data: 'escalate' });
			expect(typeof items[2].timestampMs).toBe('number');
			expect(runs[1].json('Switch', 1).map((i) => i.replyToken)).toEqual([tapped.replyToken]);
		});
	});

	describe('Verify Signature off', () => {
		it('accepts unsigned and wrongly signed calls, marking each item unverified', async () => {
			const server = await start({ verifySignature: false });
			expect((await post(server, { events: [postback('ack')] }, { signature: null })).status).toBe(200);
			expect((await post(server, { events: [message] }, { signature: 'garbage' })).status).toBe(200);
			expect(server.executions.map((e) => e.json('Workplace Trigger').map((i) => [i.type, i.verified]))).toEqual([
				[['postback', false]],
				[['message', false]],
			]);
		});

		it('needs no credential, and the panel shows a warning while it is off', async () => {
			const server = await start({ verifySignature: false }, { credentials: null });
			expect((await post(server, { events: [join] }, { signature: null })).status).toBe(200);
			expect(server.executions).toHaveLength(1);

			const { description } = bed.nodeType(TRIGGER_TYPE, 2);
			const notice = description.properties.find((p) => p.name === 'unverifiedNotice')!;
			const [credential] = description.credentials!;
			const node = (parameters: INodeParameters) => ({ typeVersion: 2, parameters }) as INode;
			const shown = (p: Parameters<typeof NodeHelpers.displayParameter>[1], parameters: INodeParameters) =>
				NodeHelpers.displayParameter(parameters, p, node(parameters), description);
			expect(notice.type).toBe('notice');
			expect(notice.displayName).toMatch(/anyone who learns this webhook URL can start the workflow/i);
			expect([shown(notice, { verifySignature: false }), shown(notice, { verifySignature: true })]).toEqual([true, false]);
			expect([shown(credential, { verifySignature: false }), shown(credential, { verifySignature: true })]).toEqual([false, true]);
			expect(description.properties.find((p) => p.name === 'verifySignature')?.default).toBe(true);
		});
	});

	describe('activation and configuration', () => {
		it('refuses to activate while verifying without a bot credential', async () => {
			await expect(start({}, { credentials: null })).rejects.toThrow(/credentials/i);
		});

		it('answers 500 and starts nothing when the credential is gone after activation', async () => {
			const server = await start({}, { credentials: null, activate: false });
			capturedLogs.length = 0;
			const res = await post(server, { events: [postback('ack')] });
			expect(res).toEqual({ status: 500, body: { message: expect.stringMatching(/no Workplace Bot API credential/) } });
			expect(server.executions).toHaveLength(0);
			expect(JSON.stringify(capturedLogs)).not.toContain('rt-ack');
		});

		it('answers 503, not "no credential", when its credential cannot be read for a moment', async () => {
			const server = await start();
			// n8n's credential store failing as a database that is not connected does.
			const read = jest.spyOn(bed.credentialsHelper, 'getDecrypted').mockRejectedValueOnce(new Error('Driver not Connected'));
			try {
				capturedLogs.length = 0;
				const res = await post(server, { events: [postback('ack')] });
				expect(res).toEqual({ status: 503, body: { message: expect.stringMatching(/could not read its Workplace Bot API credential/) } });
				expect(server.executions).toHaveLength(0);
				expect(JSON.stringify(capturedLogs)).toContain('Driver not Connected');
				// The next call, with the store back, is verified and runs.
				expect((await post(server, { events: [postback('ack')] })).status).toBe(200);
				expect(server.executions).toHaveLength(1);
			} finally {
				read.mockRestore();
			}
		});
	});

	describe('replay protection (issue 23, item 2)', () => {
		const body = { events: [postback('approve')] };
		const compact = JSON.stringify(body);

		it('starts a signed event once: the same body again, also gzip-encoded, is answered 200 as a duplicate and starts nothing', async () => {
			const server = await start();
			expect(await post(server, body)).toEqual({ status: 200, body: { received: 1, accepted: 1 } });
			expect(await post(server, body)).toEqual({ status: 200, body: { received: 1, accepted: 0, duplicate: 1 } });
			const gzipped = { raw: gzipSync(compact), signature: sign(compact), headers: { 'content-encoding': 'gzip' } };
			expect(await post(server, body, gzipped)).toEqual({ status: 200, body: { received: 1, accepted: 0, duplicate: 1 } });
			expect(server.executions).toHaveLength(1);
			// Another event (another replyToken) still starts its own execution.
			expect((await post(server, { events: [{ ...postback('approve'), replyToken: 'rt-approve-2' }] })).body).toEqual({ received: 1, accepted: 1 });
			expect(server.executions).toHaveLength(2);
		});

		it('a batch repeating one event starts it once', async () => {
			const server = await start();
			expect((await post(server, { events: [postback('ack'), postback('ack')] })).body).toEqual({ received: 2, accepted: 1, duplicate: 1 });
			expect(server.executions[0].json('Workplace Trigger')).toHaveLength(1);
		});

		it.each<[string, unknown]>([
			['ten minutes old', T0 - 10 * 60_000],
			['ten minutes ahead', T0 + 10 * 60_000],
			['a day old, as epoch seconds', T0 / 1000 - 86_400],
			['without a readable time', 'yesterday'],
			['without a time at all', undefined],
		])('refuses an event %s (default window 5 minutes): 200, stale, nothing started', async (_label, timestamp) => {
			const server = await start();
			const res = await post(server, { events: [{ ...postback('approve'), timestamp }] });
			expect(res).toEqual({ status: 200, body: { received: 1, accepted: 0, stale: 1 } });
			expect(server.executions).toHaveLength(0);
		});

		it('tolerates clock skew within the window, either way', async () => {
			const server = await start();
			const res = await post(server, { events: [{ ...postback('a'), timestamp: T0 + 2 * 60_000 }, { ...postback('b'), timestamp: T0 - 4 * 60_000 }] });
			expect(res.body).toEqual({ received: 2, accepted: 2 });
		});

		it('is configurable: a wider window takes an older event; 0 turns both checks off', async () => {
			const wide = await start({ replayWindowMinutes: 60 });
			expect((await post(wide, { events: [{ ...postback('a'), timestamp: T0 - 30 * 60_000 }] })).body).toEqual({ received: 1, accepted: 1 });
			const off = await start({ replayWindowMinutes: 0 });
			const old = { events: [{ ...postback('a'), timestamp: T0 - 30 * 86_400_000 }] };
			expect((await post(off, old)).body).toEqual({ received: 1, accepted: 1 });
			expect((await post(off, old)).body).toEqual({ received: 1, accepted: 1 });
			expect(off.executions).toHaveLength(2);
		});

		it('catches copies arriving at the same moment: 5 concurrent deliveries of one event start it once', async () => {
			const server = await start();
			const answers = await Promise.all(Array.from({ length: 5 }, async () => (await post(server, body)).body));
			expect(answers.filter((a) => a?.accepted === 1)).toHaveLength(1);
			expect(answers.filter((a) => a?.duplicate === 1)).toHaveLength(4);
			expect(server.executions).toHaveLength(1);
		});

		it('remembers per trigger: the same event reaching another workflow\'s trigger starts that workflow too', async () => {
			const one = await start();
			const other = await start();
			expect((await post(one, body)).body).toEqual({ received: 1, accepted: 1 });
			expect((await post(other, body)).body).toEqual({ received: 1, accepted: 1 });
		});
	});

	describe('calls not proven signed, and limits per call (issue 23, items 3 and 4)', () => {
		const deep = (depth: number) => `{"events":[${'['.repeat(depth)}${']'.repeat(depth)}]}`;

		it.each<[string, Call]>([
			['a deeply nested JSON body with a bogus signature', { raw: deep(100_000), signature: 'bogus' }],
			['a broken gzip body of a type n8n does not parse, with a bogus signature', { raw: 'not gzip at all', signature: 'bogus', headers: { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' } }],
			['a broken deflate body of a type n8n does not parse, with a bogus signature', { raw: 'not deflate', signature: 'bogus', headers: { 'content-encoding': 'deflate', 'content-type': 'text/html' } }],
		])('answers 401 to %s and starts nothing', async (_label, call) => {
			const server = await start();
			const res = await post(server, undefined, call);
			expect(res.status).toBe(401);
			expect(res.body).toEqual({ message: expect.stringMatching(/^Invalid X-Eko-Signature/) });
			expect(server.calls[0].result).toEqual({ noWebhookResponse: true });
			expect(server.executions).toHaveLength(0);
		});

		it('a broken gzip JSON body never reaches the node: n8n refuses it while parsing, and nothing starts', async () => {
			const server = await start();
			const res = await post(server, undefined, { raw: 'not gzip', signature: 'bogus', headers: { 'content-encoding': 'gzip' } });
			expect(res.status).toBeGreaterThanOrEqual(400);
			expect(server.executions).toHaveLength(0);
		});

		it.each([true, false])('caps events per call at 100, verification %s: 101 events are answered 413 and start nothing', async (verifySignature) => {
			const server = await start({ verifySignature, replayWindowMinutes: 0 });
			const many = (n: number) => ({ events: Array.from({ length: n }, (_, k) => ({ ...postback('ack'), replyToken: `rt-${k}` })) });
			const res = await post(server, many(101));
			expect(res).toEqual({ status: 413, body: { message: 'At most 100 events per call are accepted; this call has 101' } });
			expect(server.executions).toHaveLength(0);
			expect((await post(server, many(100))).body).toEqual({ received: 100, accepted: 100 });
			expect(server.executions).toHaveLength(1);
		});

		it('refuses signed events nested deeper than 32 levels with 400 (an execution would crash copying them)', async () => {
			const server = await start({ verifySignature: false });
			let nested: IDataObject = { leaf: true };
			for (let n = 0; n < 40; n++) nested = { nested };
			const res = await post(server, { events: [{ ...postback('ack'), nested }] }, { signature: null });
			expect(res).toEqual({ status: 400, body: { message: 'Events nested more than 32 levels deep are not accepted' } });
			expect(server.executions).toHaveLength(0);
		});
	});

	describe('version 1 (workflows saved before signatures)', () => {
		it('never passes a caller\'s verified: true with verification off (issue 23, item 5)', async () => {
			const server = await start({ verifySignature: false }, { version: 1, credentials: null });
			expect((await post(server, { events: [{ ...join, verified: true }] }, { signature: null })).status).toBe(200);
			expect(server.executions[0].json('Workplace Trigger')).toEqual([{ ...join, verified: false }]);
		});

		it('verifies signatures too, and passes the event\'s own fields as before', async () => {
			const server = await start({}, { version: 1 });
			expect((await post(server, { events: [postback('ack', 'Acknowledged'), join] }, { signature: null })).status).toBe(401);
			expect((await post(server, { events: [postback('ack', 'Acknowledged'), join] })).status).toBe(200);
			expect(server.executions[0].json('Workplace Trigger')).toEqual([
				{ ...postback('ack', 'Acknowledged'), data: 'ack', postbackText: 'Acknowledged', verified: true },
				{ ...join, verified: true },
			]);
			expect(server.executions[0].json('Switch', 0).map((i) => i.replyToken)).toEqual(['rt-ack']);
		});

		it('drops the old shared-secret parameters when loaded, and the old secret opens nothing', async () => {
			const old = { authentication: 'header', secretHeader: 'X-Webhook-Secret', secret: 'whsec-7f3a9c2e1b' };
			const server = await start(old, { version: 1 });
			expect(server.json.nodes[0].parameters).toEqual({ notice: '', events: ['*'], verifySignature: true, replayWindowMinutes: 5 });
			const res = await post(server, { events: [join] }, { signature: null, headers: { 'x-webhook-secret': old.secret } });
			expect(res.status).toBe(401);
			expect(server.executions).toHaveLength(0);
		});
	});
});
