/**
 * POST /__emulator/tap: a person taps a button of a recorded bot message as a
 * phone would. A link opens in the phone's browser (GET, then the page's form
 * submitted as the person confirming it), on loopback and the link's own origin
 * only; a postback is delivered to the webhook signed as the service signs it;
 * a message action and a v1 quick-reply item come back as a text message.
 */
import { createHmac } from 'node:crypto';
import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { directChatId } from '../../emulator/bot/state';
import { startRecordingServer, type RecordingServer } from '../../testbed/httpClient';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed({ webhook: true });
const G = SEED_GROUP_IDS.incidentRoom;
const T = SEED_TOPIC_IDS.incidentAlerts;
const { somchai, nattaya, anan } = SEED_USER_IDS;

/** A confirm page as a waiting node would serve it: GET shows the form, POST decides. */
const confirmPage = (formAttrs: string, extra = '') => `<!doctype html><html><body><h1>Approve the deployment?</h1>
<form ${formAttrs}><input type="hidden" name="answer" value="approved"><input type="hidden" name="token" value="a&amp;b">
<input type="checkbox" name="notify"> ${extra}<button type="submit" name="choice" value="yes">Confirm</button></form></body></html>`;

/** The site a tapped link opens, and another origin it must not be led to. */
let site: RecordingServer;
let other: RecordingServer;
beforeAll(async () => {
	other = await startRecordingServer(() => ({ body: 'elsewhere' }));
	site = await startRecordingServer((s) => {
		if (s.method === 'POST') return { body: '<p>Thank you, your answer was recorded.</p>' };
		if (s.url.startsWith('/moved')) return { status: 302, headers: { location: '/resume/7?signature=abc' } };
		if (s.url.startsWith('/away')) return { status: 302, headers: { location: `${other.origin}/steal` } };
		if (s.url.startsWith('/foreign-form')) return { body: confirmPage(`method="post" action="${other.origin}/steal"`) };
		if (s.url.startsWith('/ftp-form')) return { body: confirmPage('method="post" action="ftp://127.0.0.1/x"') };
		if (s.url.startsWith('/no-form')) return { body: '<p>This question was already answered.</p>' };
		if (s.url.startsWith('/gone')) return { status: 404, body: '<p>Not found</p>' };
		if (s.url.startsWith('/two-buttons')) return { body: `<form method="post" action="/decide"><button name="d" value="approve">Approve</button><button name="d" value="decline">Decline</button></form>` };
		if (s.url.startsWith('/typed')) return { body: `<form method="post" enctype="multipart/form-data"><textarea name="text">\n</textarea><select name="team"><option value="a">A</option><option value="b" selected>B</option></select><button>Send</button></form>` };
		return { body: confirmPage('method="post" action=""') };
	});
});
afterAll(async () => {
	await site.close();
	await other.close();
});

const push = async (gid: string, messages: unknown[], tid?: string) => {
	const res = await bed.call('/bot/v2/message/push', { method: 'POST', auth: 'bot', json: { gid, ...(tid ? { tid } : {}), messages } });
	expect(res.status).toBe(200);
	return bed.emulator.messaging.records.at(-1)!.seq;
};
const buttons = (actions: unknown[], text = 'Approve the deployment?') => ({ type: 'template', template: { type: 'buttons', text, actions } });
const link = (label: string, path: string, origin = site.origin) => ({ type: 'uri', label, linkUri: `${origin}${path}` });
const tap = (body: Record<string, unknown>) => bed.call('/__emulator/tap', { method: 'POST', json: body });

describe('tapping a link: the phone opens the page, then the person confirms it', () => {
	it('GETs the link, then POSTs the form to the same URL (signature kept), and reports both pages', async () => {
		site.received.length = 0;
		const seq = await push(directChatId(somchai), [buttons([link('Approve', '/resume/7?signature=s1%2Bs2'), link('Decline', '/resume/7?signature=s3&answer=no')])]);
		const res = await tap({ seq, label: 'Approve' });
		expect(res.status).toBe(200);
		expect(site.received.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /resume/7?signature=s1%2Bs2', 'POST /resume/7?signature=s1%2Bs2']);
		expect(site.received[1].headers['content-type']).toBe('application/x-www-form-urlencoded;charset=UTF-8');
		// Hidden fields with entities decoded, the unchecked box left out, the pressed button's name and value.
		expect(new URLSearchParams(site.received[1].text).toString()).toBe('answer=approved&token=a%26b&choice=yes');
		expect(res.body).toMatchObject({
			seq,
			uid: somchai,
			action: 'uri',
			button: { id: 'm0.b0', label: 'Approve', kind: 'button' },
			opened: { method: 'GET', status: 200, body: expect.stringContaining('Approve the deployment?') },
			form: { action: `${site.origin}/resume/7?signature=s1%2Bs2`, method: 'post', submit: 'Confirm' },
			submitted: { method: 'POST', status: 200, body: expect.stringContaining('your answer was recorded') },
		});
		const taps = (await bed.call('/__emulator/messages')).body.taps;
		expect(taps).toEqual([expect.objectContaining({ tapped: seq, uid: somchai, button: { id: 'm0.b0', label: 'Approve' }, outcome: 'GET 200, POST 200' })]);
	});

	it('taps a link in a text as a phone makes it tappable: the direct message a user gets with answer links', async () => {
		site.received.length = 0;
		const text = `Deploy v2.3?\n\nApprove: ${site.origin}/resume/9?approved=true&signature=q1.\nDecline: ${site.origin}/resume/9?approved=false&signature=q1`;
		const res = await bed.call('/bot/v1/direct/message', { method: 'POST', auth: 'bot', json: { uid: somchai, message: { type: 'text', data: text } } });
		expect(res.status).toBe(200);
		const seq = bed.emulator.messaging.records.at(-1)!.seq;
		const listed = (await bed.call(`/__emulator/messages?uid=${somchai}`)).body.messages.at(-1).buttons;
		expect(listed).toEqual([
			{ id: 'l0', kind: 'link', label: `${site.origin}/resume/9?approved=true&signature=q1`, type: 'uri', linkUri: `${site.origin}/resume/9?approved=true&signature=q1` },
			{ id: 'l1', kind: 'link', label: `${site.origin}/resume/9?approved=false&signature=q1`, type: 'uri', linkUri: `${site.origin}/resume/9?approved=false&signature=q1` },
		]);
		const tapped = await tap({ seq, button: 'l1' });
		expect(tapped.body).toMatchObject({ action: 'uri', button: { id: 'l1', kind: 'link' }, submitted: { status: 200 } });
		expect(site.received.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /resume/9?approved=false&signature=q1', 'POST /resume/9?approved=false&signature=q1']);
	});

	it('only opens the page with confirm false (a link preview), and submits nothing when the page has no form or fails', async () => {
		site.received.length = 0;
		const seq = await push(directChatId(somchai), [buttons([link('Look', '/resume/8'), link('Answered', '/no-form'), link('Gone', '/gone')])]);
		const look = await tap({ seq, button: 'm0.b0', confirm: false });
		expect(look.body).toMatchObject({ opened: { status: 200 }, note: expect.stringContaining('not confirmed') });
		expect(look.body.submitted).toBeUndefined();
		const answered = await tap({ seq, button: 'm0.b1' });
		expect(answered.body).toMatchObject({ opened: { body: expect.stringContaining('already answered') }, note: expect.stringContaining('no form') });
		const gone = await tap({ seq, button: 'm0.b2' });
		expect(gone.body).toMatchObject({ opened: { status: 404 }, note: expect.stringContaining('404') });
		expect(site.received.map((s) => s.method)).toEqual(['GET', 'GET', 'GET']);
	});

	it('follows a redirect within the origin, presses the named submit button, and types into the form', async () => {
		site.received.length = 0;
		const seq = await push(directChatId(somchai), [buttons([link('Moved', '/moved'), link('Pick', '/two-buttons'), link('Type', '/typed')])]);
		const moved = await tap({ seq, label: 'Moved' });
		expect(moved.body.opened).toMatchObject({ url: `${site.origin}/resume/7?signature=abc`, redirects: [`${site.origin}/resume/7?signature=abc`] });
		expect(site.received.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /moved', 'GET /resume/7?signature=abc', 'POST /resume/7?signature=abc']);

		site.received.length = 0;
		await tap({ seq, label: 'Pick', submit: 'Decline' });
		expect(site.received.map((s) => `${s.method} ${s.url} ${s.text}`)).toEqual(['GET /two-buttons ', 'POST /decide d=decline']);
		const wrong = await tap({ seq, label: 'Pick', submit: 'Maybe' });
		expect(wrong.status).toBe(400);
		expect(wrong.body.message).toContain('"Approve", "Decline"');

		site.received.length = 0;
		const typed = await tap({ seq, label: 'Type', fields: { text: 'Ship it on Friday' } });
		expect(typed.body.form).toMatchObject({ enctype: 'multipart/form-data', fields: [['team', 'b'], ['text', 'Ship it on Friday']] });
		const post = site.received[1];
		expect(post.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(post.text).toContain('name="text"\r\n\r\nShip it on Friday');
		expect(post.text).toContain('name="team"\r\n\r\nb');
	});

	it('never leaves the link\'s origin or loopback, and opens only http(s)', async () => {
		other.received.length = 0;
		site.received.length = 0;
		const seq = await push(directChatId(somchai), [
			buttons([link('Away', '/away'), link('Foreign', '/foreign-form'), link('Ftp', '/ftp-form'), { type: 'uri', label: 'Outside', linkUri: 'https://example.com/resume' }]),
		]);
		const away = await tap({ seq, label: 'Away' });
		expect(away).toMatchObject({ status: 502, body: { error: 'bad_gateway', message: expect.stringContaining(`redirected to ${other.origin}`) } });
		const foreign = await tap({ seq, label: 'Foreign' });
		expect(foreign).toMatchObject({ status: 502, body: { message: expect.stringContaining(`submits to ${other.origin}`) } });
		const ftp = await tap({ seq, label: 'Ftp' });
		expect(ftp).toMatchObject({ status: 502, body: { message: expect.stringContaining('submits to ftp:') } });
		const outside = await tap({ seq, label: 'Outside' });
		expect(outside).toMatchObject({ status: 400, body: { message: expect.stringContaining('loopback addresses only') } });
		expect(other.received).toEqual([]);
		expect(site.received.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /away', 'GET /foreign-form', 'GET /ftp-form']);
		// A refused tap is not recorded as a tap.
		expect(bed.emulator.messaging.taps).toEqual([]);
	});
});

describe('tapping a postback, a message action or a quick reply: an event to the webhook', () => {
	it('delivers the postback to the webhook signed with the client secret, as the member who tapped, in the message\'s chat', async () => {
		bed.webhook.received.length = 0;
		const seq = await push(G, [buttons([{ type: 'postback', label: 'Approve', data: 'resume=exec-{n}&answer=approve', text: 'I approve' }])], T);
		const res = await tap({ seq, label: 'Approve', uid: nattaya, url: bed.webhook.url });
		expect(res.status).toBe(200);
		const [got] = bed.webhook.received;
		expect(got.headers['x-eko-signature']).toBe(createHmac('sha256', bed.emulator.config.clientSecret).update(got.raw).digest('base64'));
		expect(got.body.events).toEqual([
			expect.objectContaining({ type: 'postback', source: { type: 'user', uid: nattaya, gid: G }, postback: { data: 'resume=exec-{n}&answer=approve' } }),
		]);
		expect(bed.emulator.messaging.replyTokens.get(got.body.events[0].replyToken)?.target).toEqual({ gid: G, tid: T });
		expect(res.body).toMatchObject({ action: 'postback', uid: nattaya, delivery: { status: 200, signature: got.headers['x-eko-signature'], event: got.body.events[0] } });
		expect(bed.emulator.messaging.taps).toEqual([expect.objectContaining({ tapped: seq, uid: nattaya, text: 'I approve', outcome: 'webhook 200' })]);
	});

	it('uses the configured webhook by default and the direct chat\'s person when no uid is named', async () => {
		bed.webhook.received.length = 0;
		bed.emulator.setConfig({ webhookUrl: bed.webhook.url });
		const seq = await push(directChatId(somchai), [{ type: 'text', text: 'Pick', quickReply: { items: [{ type: 'action', action: { type: 'message', label: 'Yes', text: 'yes please' } }] } }]);
		const res = await tap({ seq, button: 'm0.q0' });
		expect(res.status).toBe(200);
		expect(bed.webhook.received[0].body.events[0]).toMatchObject({ type: 'message', source: { uid: somchai, gid: directChatId(somchai) }, message: { type: 'text', text: 'yes please' } });
	});

	it('taps a v1 quick-reply item as the text message it comes back as', async () => {
		bed.webhook.received.length = 0;
		const token = await bed.replyToken({ uid: somchai });
		bed.webhook.received.length = 0;
		const items = [{ type: 'label', value: 'Restart', data: { text: 'restart web-1' } }];
		const res = await bed.call('/bot/v1/message/quickreply', { method: 'POST', auth: 'bot', json: { replyToken: token, message: { data: 'What now?', meta: { quickreply: { template: 'default', items } } } } });
		expect(res.status).toBe(200);
		const seq = bed.emulator.messaging.records.at(-1)!.seq;
		const tapped = await tap({ seq, button: 'q0', url: bed.webhook.url });
		expect(tapped.body).toMatchObject({ action: 'message', button: { id: 'q0', label: 'Restart', kind: 'quickReply' } });
		expect(bed.webhook.received[0].body.events[0].message.text).toBe('restart web-1');
	});

	it('refuses a person who cannot see the chat, an app action, and a bad request, without delivering anything', async () => {
		bed.webhook.received.length = 0;
		const inGroup = await push(G, [buttons([{ type: 'postback', label: 'Ack', data: 'ack' }, { type: 'workflow', label: 'Open', workflowId: 'wf1' }])]);
		const direct = await push(directChatId(somchai), [buttons([{ type: 'postback', label: 'Ack', data: 'ack' }])]);
		const cases: Array<[Record<string, unknown>, number, string]> = [
			[{ seq: inGroup, label: 'Ack', uid: anan, url: bed.webhook.url }, 403, `uid ${anan} cannot see message ${inGroup}: it is in group ${G}`],
			[{ seq: inGroup, label: 'Ack', url: bed.webhook.url }, 400, 'uid is required'],
			[{ seq: direct, label: 'Ack', uid: nattaya, url: bed.webhook.url }, 403, `in the direct chat of ${somchai}`],
			[{ seq: inGroup, label: 'Open', uid: nattaya, url: bed.webhook.url }, 400, "a workflow action opens the service's own app"],
			[{ seq: inGroup, button: 'm0.b9', uid: nattaya }, 404, 'has no button m0.b9; it has m0.b0 "Ack", m0.b1 "Open"'],
			[{ seq: 999, label: 'Ack' }, 404, 'no recorded message 999'],
			[{ seq: inGroup, label: 'Ack', button: 'm0.b0' }, 400, 'one of the two'],
			[{ label: 'Ack' }, 400, 'seq is required'],
			[{ seq: inGroup, label: 'Ack', uid: nattaya, fields: { a: 1 } }, 400, 'fields must map'],
		];
		for (const [body, status, message] of cases) {
			const res = await tap(body);
			expect({ status: res.status, message: res.body.message }).toEqual({ status, message: expect.stringContaining(message) });
		}
		expect(bed.webhook.received).toEqual([]);
	});

	it('asks to name the button by id when two share a label', async () => {
		const seq = await push(G, [
			{ type: 'template', template: { type: 'carousel', columns: [0, 1].map((k) => ({ text: `Column ${k}`, actions: [{ type: 'postback', label: 'Pick', data: `pick-${k}` }] })) } },
		]);
		const res = await tap({ seq, label: 'Pick', uid: nattaya });
		expect(res.status).toBe(404);
		expect(res.body.message).toContain('2 buttons labelled "Pick"; name one by its id: m0.c0.b0 "Pick", m0.c1.b0 "Pick"');
	});
});
