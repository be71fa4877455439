/**
 * Issue 23 in real n8n 2.41.1: what the published Workplace Trigger answers to
 * replayed, stale, deeply nested, broken-encoding and oversized calls, and how
 * many executions each leaves (none). Calls are posted straight to the
 * production webhook URL, signed as the service signs (base64 HMAC-SHA256 of
 * the body bytes, keyed with the bot's client secret) or with a bogus signature.
 * Executions are counted through n8n's REST API; a last signed event proves the
 * count is read after n8n has had the chance to start anything.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

import { chainWorkflow } from '../../testbed/chainWorkflow';
import { dismissDialogs, launchChromium, RESULTS_DIR, signInToEditor, step } from '../lib/browser';
import { e2eTestbed } from '../lib/testbed';
import { noOp, workplaceTrigger } from '../lib/workflows';

const WORKFLOW_ID = 'wpSecurityE2e001';
// No events chosen: the trigger takes every event.
const workflow = chainWorkflow(WORKFLOW_ID, 'Trigger under attack (security e2e)', [workplaceTrigger(), noOp('Approve')]);

const bed = e2eTestbed({ credentials: ['workplaceBotApi'], workflows: [workflow], publish: true });

interface Call {
	body: Buffer | string;
	signature?: string;
	headers?: Record<string, string>;
}

const sign = (bytes: Buffer | string) => bed.sign(bytes);

async function post({ body, signature, headers }: Call): Promise<{ status: number; body: string }> {
	const response = await fetch(bed.triggerUrl(workflow), {
		method: 'POST',
		headers: { 'content-type': 'application/json;charset=utf-8', ...(signature ? { 'x-eko-signature': signature } : {}), ...headers },
		body,
	});
	return { status: response.status, body: (await response.text()).slice(0, 300) };
}

const executions = async () => await bed.rest.executions(WORKFLOW_ID);
const executionsEnded = async (total: number) => await bed.executionsEnded(WORKFLOW_ID, total);

const approve = (replyToken: string, timestamp = Date.now()) =>
	JSON.stringify({ events: [{ type: 'postback', replyToken, source: { type: 'user', uid: 'u1' }, timestamp, postback: { data: 'approve' } }] });

test('replayed, stale, nested, broken-encoding and oversized calls are answered without starting anything', async () => {
	const first = approve('rt-approve-1');
	const original = await post({ body: first, signature: sign(first) });
	expect(original).toEqual({ status: 200, body: '{"received":1,"accepted":1}' });
	await executionsEnded(1);

	const deep = `{"events":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}`;
	const many = JSON.stringify({ events: Array.from({ length: 101 }, (_, n) => ({ type: 'postback', replyToken: `rt-${n}`, timestamp: Date.now(), postback: { data: 'approve' } })) });
	const stale = approve('rt-stale', Date.now() - 10 * 60_000);
	const calls: Array<[string, Call, number, RegExp]> = [
		['replayed (same bytes, same signature)', { body: first, signature: sign(first) }, 200, /^\{"received":1,"accepted":0,"duplicate":1\}$/],
		['replayed gzip-encoded', { body: gzipSync(first), signature: sign(first), headers: { 'content-encoding': 'gzip' } }, 200, /"duplicate":1/],
		['stale (10 minutes old, signed)', { body: stale, signature: sign(stale) }, 200, /^\{"received":1,"accepted":0,"stale":1\}$/],
		['deeply nested JSON, bogus signature', { body: deep, signature: 'bogus' }, 401, /Invalid X-Eko-Signature/],
		['broken gzip, octet-stream, bogus signature', { body: 'not gzip', signature: 'bogus', headers: { 'content-encoding': 'gzip', 'content-type': 'application/octet-stream' } }, 401, /Invalid X-Eko-Signature/],
		['101 events, signed', { body: many, signature: sign(many) }, 413, /At most 100 events per call/],
	];
	// Every call first, then the count: the table shows what n8n answered and left, even when an answer is not the one expected.
	const answers: Array<{ label: string; status: number; body: string; expected: number; said: RegExp }> = [];
	for (const [label, call, expected, said] of calls) answers.push({ label, ...(await post(call)), expected, said });
	// A broken gzip body said to be JSON is refused by n8n's own body parser, before the node runs.
	const brokenJson = await post({ body: 'not gzip', signature: 'bogus', headers: { 'content-encoding': 'gzip' } });

	// A new signed event starts one more execution: every refused call above started none.
	const second = approve('rt-approve-2');
	const last = await post({ body: second, signature: sign(second) });
	const ended = await executionsEnded(2);
	const table = [
		...answers.map((a) => `${a.label}: ${a.status} ${a.body.slice(0, 80)}`),
		`broken gzip, application/json, bogus signature: ${brokenJson.status} ${brokenJson.body.slice(0, 60)}`,
		`a new signed event: ${last.status}`,
		`executions after all calls: ${ended.length} (${ended.map((e) => e.status).join(', ')})`,
	];
	console.log(`security e2e, n8n 2.41.1:\n  ${table.join('\n  ')}`);

	for (const a of answers) {
		expect({ label: a.label, status: a.status }).toEqual({ label: a.label, status: a.expected });
		expect(a.body).toMatch(a.said);
	}
	expect(brokenJson.status).toBeGreaterThanOrEqual(400);
	expect(last.status).toBe(200);
	expect(ended.map((e) => e.status)).toEqual(['success', 'success']);
	expect(await executions()).toHaveLength(2);
	// Nothing of the refused bodies' handling reached n8n's log as a stack trace.
	expect(bed.n8n.output.join('')).not.toMatch(/Maximum call stack size exceeded/);
});

test('the trigger\'s panel shows Replay Window (Minutes), 5 by default', async () => {
	const browser = await launchChromium();
	const { page } = browser;
	page.setDefaultTimeout(60_000);
	try {
		await step(page, 'security-trigger-panel', async () => {
			await signInToEditor(page, bed.url);
			// The editor opens a node's parameters from its address.
			await page.goto(`${bed.n8n.url}/workflow/${WORKFLOW_ID}/${workflow.nodes[0].id}`);
			await dismissDialogs(page);
			const ndv = page.getByTestId('ndv');
			await ndv.waitFor();
			await ndv.getByText('Replay Window (Minutes)', { exact: true }).waitFor();
			expect(await ndv.getByTestId('parameter-input-replayWindowMinutes').locator('input').inputValue()).toBe('5');
			mkdirSync(RESULTS_DIR, { recursive: true });
			await page.screenshot({ path: path.join(RESULTS_DIR, 'security-trigger-panel.png') });
		});
	} finally {
		await browser.close();
	}
});

