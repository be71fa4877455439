/**
 * The emulator's play page in headless Chromium, as a developer meets it in
 * `npm run dev`: the bot's questions drawn as a chat (a buttons template with
 * link buttons in a direct chat, postback buttons and a carousel in a group
 * topic), a click on Approve opening the link as a phone would (GET, then the
 * confirm page's form POSTed) and a click on a postback button delivering the
 * signed event to the webhook as the chosen person. No n8n here: a small local
 * site stands in for the waiting node's confirm page. The screenshot goes to
 * docs/emulator-play-page.png.
 */
import { createHmac } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { directChatId } from '../../emulator/bot/state';
import { launchChromium, step, type Chromium } from '../lib/browser';
import { ROOT } from '../../testbed/root';
import { e2eTestbed } from '../lib/testbed';

interface Seen {
	method: string;
	url: string;
	headers: http.IncomingHttpHeaders;
	body: Buffer;
}

/** An HTTP server on 127.0.0.1 that keeps every request and answers `answer(request)`. */
async function serve(answer: (seen: Seen) => { type: string; body: string }) {
	const seen: Seen[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const s = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
			seen.push(s);
			const { type, body } = answer(s);
			res.writeHead(200, { 'content-type': type });
			res.end(body);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const CONFIRM = `<!doctype html><html><body style="font:15px system-ui;padding:1rem">
<h2>Approve the deployment?</h2><form method="post"><input type="hidden" name="approved" value="true"><button>Confirm</button></form></body></html>`;
const THANKS = '<!doctype html><html><body style="font:15px system-ui;padding:1rem"><h2>Thank you</h2><p>Your answer was recorded.</p></body></html>';

const bed = e2eTestbed({ n8n: false });
let site: Awaited<ReturnType<typeof serve>>;
let hook: Awaited<ReturnType<typeof serve>>;
let browser: Chromium;

beforeAll(async () => {
	site = await serve((s) => ({ type: 'text/html; charset=utf-8', body: s.method === 'POST' ? THANKS : CONFIRM }));
	hook = await serve(() => ({ type: 'application/json', body: '{}' }));
	bed.emulator.setConfig({ webhookUrl: `${hook.url}/webhook/bot` });
	browser = await launchChromium({ width: 1280, height: 1000 });
	browser.page.setDefaultTimeout(60_000);
}, 180_000);

afterAll(async () => {
	await browser?.close();
	await site?.close();
	await hook?.close();
});

async function push(gid: string, messages: unknown[], tid?: string): Promise<void> {
	const basic = Buffer.from(`${bed.emulator.config.clientId}:${bed.emulator.config.clientSecret}`).toString('base64');
	const token = await fetch(`${bed.emulator.url}/oauth/token`, {
		method: 'POST',
		headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
		body: 'grant_type=client_credentials&scope=bot+profile',
	});
	const { access_token } = (await token.json()) as { access_token: string };
	const res = await fetch(`${bed.emulator.url}/bot/v2/message/push`, {
		method: 'POST',
		headers: { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' },
		body: JSON.stringify({ gid, ...(tid ? { tid } : {}), messages }),
	});
	expect(res.status).toBe(200);
}

describe('the play page in headless Chromium', () => {
	test('draws the questions as a chat; clicking a link button confirms its page, clicking a postback delivers the signed event', async () => {
		const { page } = browser;
		const { somchai, nattaya } = SEED_USER_IDS;
		await push(directChatId(somchai), [
			{ type: 'text', text: 'Hi somchai, a deployment is waiting for your approval.' },
			{
				type: 'template',
				template: {
					type: 'buttons',
					title: 'Deploy web v2.3 to production',
					text: 'Requested by nattaya.p for 14:00 today.',
					actions: [
						{ type: 'uri', label: 'Approve', linkUri: `${site.url}/webhook-waiting/41?approved=true&signature=3f9a` },
						{ type: 'uri', label: 'Decline', linkUri: `${site.url}/webhook-waiting/41?approved=false&signature=3f9a` },
					],
				},
			},
		]);
		await push(SEED_GROUP_IDS.incidentRoom, [
			{
				type: 'template',
				template: {
					type: 'buttons',
					text: 'CPU on web-1 has been above 95% for 10 minutes. Restart it?',
					actions: [
						{ type: 'postback', label: 'Restart', data: 'answer=restart&execution=42', text: 'Restart web-1' },
						{ type: 'postback', label: 'Leave it', data: 'answer=leave&execution=42' },
					],
				},
				quickReply: { items: [{ type: 'action', action: { type: 'message', label: 'Show graph', text: 'graph web-1' } }] },
			},
			{
				type: 'template',
				template: {
					type: 'carousel',
					columns: ['web-1', 'web-2', 'web-3'].map((host, k) => ({
						title: host,
						text: `${[97, 41, 38][k]}% CPU`,
						actions: [{ type: 'postback', label: 'Restart', data: `restart=${host}` }],
					})),
				},
			},
		], SEED_TOPIC_IDS.incidentAlerts);

		await step(page, 'play-page-load', async () => {
			await page.goto(`${bed.emulator.url}/__emulator/`);
			await page.locator('.entry.bot .card.buttons').first().waitFor();
		});
		expect(await page.locator('.entry.bot').count()).toBe(2);
		expect(await page.locator('.carousel .card.column').count()).toBe(3);

		await step(page, 'play-page-tap-link', async () => {
			await page.locator('.entry[data-uid] .card-button', { hasText: 'Approve' }).click();
			await page.locator('.entry.person .bubble.tapped', { hasText: 'GET 200, POST 200' }).waitFor();
			await page.frameLocator('#frame').getByText('Your answer was recorded.').waitFor();
		});
		expect(site.seen.map((s) => `${s.method} ${s.url} ${s.body.toString()}`)).toEqual([
			'GET /webhook-waiting/41?approved=true&signature=3f9a ',
			'POST /webhook-waiting/41?approved=true&signature=3f9a approved=true',
		]);

		await step(page, 'play-page-tap-postback', async () => {
			await page.selectOption('#uid', nattaya);
			await page.locator('.entry:not([data-uid]) .card.buttons .card-button', { hasText: 'Restart' }).click();
			await page.locator('.entry.person .bubble.text', { hasText: 'Restart web-1' }).waitFor();
		});
		expect(hook.seen).toHaveLength(1);
		const [delivery] = hook.seen;
		const signature = createHmac('sha256', bed.emulator.config.clientSecret).update(delivery.body).digest('base64');
		expect(delivery.headers['x-eko-signature']).toBe(signature);
		expect(JSON.parse(delivery.body.toString()).events[0]).toMatchObject({
			type: 'postback',
			source: { uid: nattaya, gid: SEED_GROUP_IDS.incidentRoom },
			postback: { data: 'answer=restart&execution=42' },
		});

		await page.screenshot({ path: path.join(ROOT, 'docs', 'emulator-play-page.png'), fullPage: true });
	});
});
