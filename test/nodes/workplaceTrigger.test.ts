/**
 * Workplace Trigger: real HTTP requests with real-shaped events (spec README)
 * reach the node's webhook() in n8n-core's WebhookContext; returned items start
 * executions in the real engine (here: trigger → Switch on the postback data).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { WorkflowJson } from '../harness/engine';
import { Testbed } from '../harness/testbed';
import type { WebhookServer } from '../harness/webhook';

let bed: Testbed;
const servers: WebhookServer[] = [];

beforeAll(async () => {
	bed = await Testbed.start();
});
afterEach(async () => {
	await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(async () => {
	await bed?.close();
});

const GID = '64b7f0a1c2d3e4f5a6b7d001';
const source = (uid: string) => ({ type: 'group', uid, gid: GID });
const postback = (data: string, text?: string): IDataObject => ({
	type: 'postback',
	replyToken: `rt-${data}`,
	source: source('64b7f0a1c2d3e4f5a6b7c801'),
	timestamp: 1718000000000,
	postback: text === undefined ? { data } : { data, text },
});
const message: IDataObject = {
	type: 'message',
	replyToken: 'rt-msg',
	source: source('64b7f0a1c2d3e4f5a6b7c803'),
	timestamp: 1718000000100,
	message: { id: 'msg-1', type: 'text', groupId: GID, topicId: 'topic-9', text: 'Is the API down?' },
};
const join: IDataObject = { type: 'join', replyToken: 'rt-join', source: source('64b7f0a1c2d3e4f5a6b7c800'), timestamp: 1718000000200 };
const unknown: IDataObject = { type: 'memberLeft', source: source('64b7f0a1c2d3e4f5a6b7c806'), timestamp: 1718000000300, left: { uid: 'x' } };

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

function workflow(trigger: INodeParameters): WorkflowJson {
	return {
		name: 'trigger test',
		nodes: [
			{ id: 'trig', name: 'Workplace Trigger', type: 'n8n-nodes-workplace.workplaceTrigger', typeVersion: 1, position: [0, 0], parameters: trigger, webhookId: 'wh-1' },
			{ id: 'sw', name: 'Switch', type: 'n8n-nodes-base.switch', typeVersion: 3.2, position: [200, 0], parameters: switchOnData() },
		],
		connections: { 'Workplace Trigger': { main: [[{ node: 'Switch', type: 'main', index: 0 }]] } },
	};
}

async function start(trigger: INodeParameters = {}) {
	const server = await bed.startWebhook(workflow(trigger), 'Workplace Trigger');
	servers.push(server);
	return server;
}

async function post(server: WebhookServer, body: unknown, init: { headers?: Record<string, string>; query?: string } = {}) {
	const res = await fetch(`${server.url}/webhook/wh-1/webhook${init.query ?? ''}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...init.headers },
		body: typeof body === 'string' ? body : JSON.stringify(body),
	});
	const text = await res.text();
	await server.settled();
	return { status: res.status, body: text ? (JSON.parse(text) as IDataObject) : undefined };
}

describe('Workplace Trigger', () => {
	it('answers 200 and emits one item per event of a batch of 3', async () => {
		const server = await start();
		const res = await post(server, { events: [postback('ack', 'Acknowledged'), message, join] });
		expect(res).toEqual({ status: 200, body: { received: 3, accepted: 3 } });
		expect(server.executions).toHaveLength(1);
		const [run] = server.executions;
		expect(run.status).toBe('success');
		const items = run.json('Workplace Trigger');
		expect(items.map((i) => i.type)).toEqual(['postback', 'message', 'join']);
		expect(items[0]).toEqual({ ...postback('ack', 'Acknowledged'), data: 'ack', postbackText: 'Acknowledged' });
		expect(items[1]).toEqual(message);
		expect(items[2]).toEqual(join);
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

	it('passes an unknown event type with all events, its type kept', async () => {
		const server = await start({ events: ['*'] });
		await post(server, { events: [unknown] });
		expect(server.executions[0].json('Workplace Trigger')).toEqual([unknown]);
	});

	it('answers 200 and starts nothing when no event passes the filter, or the batch is empty', async () => {
		const server = await start({ events: ['join'] });
		expect(await post(server, { events: [message] })).toEqual({ status: 200, body: { received: 1, accepted: 0 } });
		expect(await post(server, { events: [] })).toEqual({ status: 200, body: { received: 0, accepted: 0 } });
		expect(server.executions).toHaveLength(0);
	});

	it('answers 400 to a body without an events array, and starts nothing', async () => {
		const server = await start();
		expect((await post(server, { event: postback('ack') })).status).toBe(400);
		expect((await post(server, [postback('ack')])).status).toBe(400);
		expect(server.executions).toHaveLength(0);
	});

	describe('shared secret', () => {
		const SECRET = 'whsec-7f3a9c2e1b';

		it('accepts the right secret in the header', async () => {
			const server = await start({ authentication: 'header', secretHeader: 'X-Webhook-Secret', secret: SECRET });
			const res = await post(server, { events: [postback('ack'), message, join] }, { headers: { 'x-webhook-secret': SECRET } });
			expect(res.status).toBe(200);
			expect(server.executions[0].json('Workplace Trigger')).toHaveLength(3);
		});

		it.each([
			['a wrong secret', { 'x-webhook-secret': 'whsec-7f3a9c2e1c' }],
			['a secret of another length', { 'x-webhook-secret': 'whsec' }],
			['no secret', {}],
			['the secret in another header', { authorization: SECRET }],
		])('answers 401 to %s and emits no items', async (_label, headers) => {
			const server = await start({ authentication: 'header', secretHeader: 'X-Webhook-Secret', secret: SECRET });
			const res = await post(server, { events: [postback('ack'), message, join] }, { headers });
			expect(res).toEqual({ status: 401, body: { message: 'Authorization is required' } });
			expect(server.executions).toHaveLength(0);
			expect(server.calls[0].result).toEqual({ noWebhookResponse: true });
		});

		it('accepts the right secret as a query parameter and refuses a wrong one', async () => {
			const server = await start({ authentication: 'query', secretQuery: 'token', secret: SECRET });
			expect((await post(server, { events: [join] }, { query: `?token=${SECRET}` })).status).toBe(200);
			expect((await post(server, { events: [join] }, { query: '?token=wrong' })).status).toBe(401);
			expect((await post(server, { events: [join] }, { query: `?secret=${SECRET}` })).status).toBe(401);
			expect(server.executions).toHaveLength(1);
		});

		it('lets nobody in while the configured secret is empty', async () => {
			const server = await start({ authentication: 'header', secretHeader: 'X-Webhook-Secret', secret: '' });
			expect((await post(server, { events: [join] }, { headers: { 'x-webhook-secret': '' } })).status).toBe(401);
			expect(server.executions).toHaveLength(0);
		});
	});
});
