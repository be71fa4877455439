/**
 * GET /__emulator/chat draws what the bot sent as a chat does. The HTML is read
 * back into a tree (a small reader below, strict: a tag left open or closed out
 * of order fails the test) and checked by structure: bubbles, cards with their
 * buttons, carousels, imagemap areas placed by percentage, quick-reply chips,
 * files, and the people's taps; nothing a message holds becomes markup.
 */
import { SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { pngBytes } from '../../emulator/bot/pictures';
import { directChatId } from '../../emulator/bot/state';
import { multipartForm, startRecordingServer } from '../../testbed/httpClient';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed({ webhook: true });
const G = SEED_GROUP_IDS.incidentRoom;
const T = SEED_TOPIC_IDS.incidentAlerts;
const { somchai, nattaya } = SEED_USER_IDS;

interface El {
	tag: string;
	attrs: Record<string, string>;
	children: Array<El | string>;
}

const VOID = new Set(['img', 'input', 'br', 'meta', 'hr']);
const decode = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');

function parse(html: string): El {
	const root: El = { tag: '#root', attrs: {}, children: [] };
	const stack = [root];
	for (const m of html.matchAll(/<(\/?)([a-z0-9]+)((?:\s+[a-z-]+="[^"]*")*)\s*>|([^<]+)/g)) {
		const top = stack[stack.length - 1];
		if (m[4] !== undefined) {
			top.children.push(decode(m[4]));
		} else if (m[1]) {
			if (top.tag !== m[2]) throw new Error(`</${m[2]}> closes <${top.tag}>`);
			stack.pop();
		} else {
			const attrs = Object.fromEntries([...m[3].matchAll(/([a-z-]+)="([^"]*)"/g)].map((a) => [a[1], decode(a[2])]));
			const el: El = { tag: m[2], attrs, children: [] };
			top.children.push(el);
			if (!VOID.has(m[2])) stack.push(el);
		}
	}
	if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1].tag}> left open`);
	return root;
}

const classes = (el: El) => (el.attrs.class ?? '').split(' ');
const elements = (el: El) => el.children.filter((c): c is El => typeof c !== 'string');
function all(el: El, selector: string): El[] {
	const [tag, ...cls] = selector.split('.');
	const out: El[] = [];
	const visit = (e: El) => {
		for (const child of elements(e)) {
			if ((tag === '' || child.tag === tag) && cls.every((c) => classes(child).includes(c))) out.push(child);
			visit(child);
		}
	};
	visit(el);
	return out;
}
const one = (el: El, selector: string) => {
	const found = all(el, selector);
	if (found.length !== 1) throw new Error(`${found.length} matches for ${selector}`);
	return found[0];
};
const text = (el: El | string): string => (typeof el === 'string' ? el : el.children.map(text).join(''));
/** A tappable button as [data-button, label, data-action]. */
const tapOf = (b: El) => [b.attrs['data-button'], text(b).replace(' ↗', ''), b.attrs['data-action']];

async function chat(query = ''): Promise<El> {
	const res = await bed.call(`/__emulator/chat${query}`);
	expect(res.status).toBe(200);
	expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
	return one(parse(res.text), 'ol.chat');
}
const push = async (gid: string, messages: unknown[], tid?: string) => {
	const res = await bed.call('/bot/v2/message/push', { method: 'POST', auth: 'bot', json: { gid, ...(tid ? { tid } : {}), messages } });
	expect(res.status).toBe(200);
};
const entry = (root: El, n: number) => all(root, 'li.entry')[n];

describe('GET /__emulator/chat', () => {
	it('says so when the bot has sent nothing', async () => {
		expect(text(one(await chat(), 'li.empty'))).toBe('The bot has sent nothing yet.');
	});

	it('draws text, image, video and audio messages as bubbles, with who sent them where', async () => {
		await push(G, [
			{ type: 'text', text: 'CPU is at 97%\non web-1' },
			{ type: 'image', originalContentUrl: 'https://img.example/full.png', previewImageUrl: 'https://img.example/small.png' },
			{ type: 'video', originalContentUrl: 'https://img.example/v.mp4', previewImageUrl: 'https://img.example/v.png' },
			{ type: 'audio', originalContentUrl: 'https://img.example/a.m4a', duration: 4500 },
		], T);
		const e = entry(await chat(), 0);
		expect(classes(e)).toEqual(['entry', 'bot']);
		expect(text(one(e, 'span.chat-name'))).toBe('Incident Room › Alerts');
		const bubbles = all(e, 'div.bubble');
		expect(bubbles.map((b) => classes(b)[1])).toEqual(['text', 'image', 'video', 'audio']);
		expect(text(bubbles[0])).toBe('CPU is at 97%\non web-1');
		expect(one(bubbles[1], 'img').attrs.src).toBe('https://img.example/small.png');
		expect(one(bubbles[1], 'a').attrs).toMatchObject({ href: 'https://img.example/full.png', rel: 'noopener noreferrer' });
		expect(one(bubbles[2], 'a').attrs.href).toBe('https://img.example/v.mp4');
		expect(text(one(bubbles[3], 'span.duration'))).toBe('4.5 s');
	});

	it('draws a buttons template as a card whose buttons tap, and quick replies as chips', async () => {
		await push(directChatId(somchai), [
			{
				type: 'template',
				template: {
					type: 'buttons',
					thumbnailImageUrl: 'https://img.example/deploy.png',
					imageAspectRatio: 'square',
					title: 'Deploy v2.3',
					text: 'Approve?',
					actions: [
						{ type: 'uri', label: 'Approve', linkUri: 'http://127.0.0.1:5678/webhook-waiting/7?signature=x' },
						{ type: 'postback', label: 'Decline', data: 'decline' },
					],
				},
				quickReply: { items: [{ type: 'action', action: { type: 'message', label: 'Later', text: 'later' } }] },
			},
		]);
		const e = entry(await chat(), 0);
		expect(e.attrs['data-uid']).toBe(somchai);
		expect(text(one(e, 'span.chat-name'))).toBe('Direct chat with somchai.k');
		const card = one(e, 'div.card.buttons');
		expect(one(card, 'img.thumb.square').attrs.src).toBe('https://img.example/deploy.png');
		expect(text(one(card, 'div.title'))).toBe('Deploy v2.3');
		expect(text(one(card, 'div.text'))).toBe('Approve?');
		const actions = all(one(card, 'div.actions'), 'button.tap.card-button');
		expect(actions.map(tapOf)).toEqual([['m0.b0', 'Approve', 'uri'], ['m0.b1', 'Decline', 'postback']]);
		expect(actions.every((b) => b.attrs['data-seq'] === e.attrs['data-seq'] && b.attrs.type === 'button')).toBe(true);
		expect(actions[0].attrs.title).toBe('http://127.0.0.1:5678/webhook-waiting/7?signature=x');
		expect(all(one(e, 'div.quick-replies'), 'button.tap.chip').map(tapOf)).toEqual([['m0.q0', 'Later', 'message']]);
	});

	it('makes the links in a text tappable inline, as a phone does', async () => {
		await bed.call('/bot/v1/direct/message', { method: 'POST', auth: 'bot', json: { uid: somchai, message: { type: 'text', data: 'Approve: http://127.0.0.1:5678/w/1?approved=true&s=<x>. Or not.' } } });
		await push(G, [{ type: 'text', text: 'See https://runbook.example/cpu, then http://127.0.0.1:1/a' }]);
		const [direct, group] = all(await chat(), 'li.entry');
		const bubble = one(direct, 'div.bubble.text');
		expect(bubble.children.map((c) => (typeof c === 'string' ? c : tapOf(c)))).toEqual([
			'Approve: ',
			['l0', 'http://127.0.0.1:5678/w/1?approved=true&s=', 'uri'],
			'<x>. Or not.',
		]);
		expect(all(one(group, 'div.bubble.text'), 'button.tap.text-link').map(tapOf)).toEqual([
			['m0.l0', 'https://runbook.example/cpu', 'uri'],
			['m0.l1', 'http://127.0.0.1:1/a', 'uri'],
		]);
	});

	it('draws a carousel as a row of cards and an imagemap with its areas placed by percentage', async () => {
		const column = (k: number) => ({ title: `Host ${k}`, text: `web-${k}`, actions: [{ type: 'postback', label: 'Restart', data: `restart-${k}` }, { type: 'message', label: 'Logs', text: `logs ${k}` }] });
		await push(G, [
			{ type: 'template', template: { type: 'carousel', columns: [column(1), column(2), column(3)] } },
			{ type: 'imagemap', baseUrl: 'https://img.example/map', altText: 'Floor plan', baseSize: { width: 1040, height: 520 }, actions: [
				{ type: 'postback', label: 'East', data: 'east', area: { x: 0, y: 0, width: 520, height: 520 } },
				{ type: 'uri', linkUri: 'http://127.0.0.1:1/west', area: { x: 520, y: 130, width: 520, height: 260 } },
			] },
		]);
		const e = entry(await chat(), 0);
		const cards = elements(one(e, 'div.carousel'));
		expect(cards.map((c) => classes(c).join(' '))).toEqual(['card column', 'card column', 'card column']);
		expect(cards.map((c) => text(one(c, 'div.title')))).toEqual(['Host 1', 'Host 2', 'Host 3']);
		expect(all(cards[1], 'button.tap').map(tapOf)).toEqual([['m0.c1.b0', 'Restart', 'postback'], ['m0.c1.b1', 'Logs', 'message']]);
		const map = one(e, 'div.imagemap');
		expect(map.attrs).toMatchObject({ style: 'aspect-ratio:1040 / 520', title: 'Floor plan' });
		expect(one(map, 'img').attrs).toEqual({ src: 'https://img.example/map', alt: 'Floor plan' });
		const areas = all(map, 'button.tap.area');
		expect(areas.map(tapOf)).toEqual([['m1.a0', 'East', 'postback'], ['m1.a1', 'area 2', 'uri']]);
		expect(areas.map((a) => a.attrs.style)).toEqual([
			'left:0.000%;top:0.000%;width:50.000%;height:100.000%',
			'left:50.000%;top:25.000%;width:50.000%;height:50.000%',
		]);
	});

	it('draws v1 texts, pictures, files and quick replies, and filters by chat', async () => {
		await bed.call('/bot/v1/group/message', { method: 'POST', auth: 'bot', json: { gid: G, message: { type: 'text', data: 'Main chat' } } });
		await bed.call('/bot/v1/direct/picture', { method: 'POST', auth: 'bot', body: multipartForm({ uid: somchai, caption: 'The graph' }, [{ data: pngBytes(2048), type: 'image/png', filename: 'cpu.png' }]) });
		await bed.call('/bot/v1/direct/file', { method: 'POST', auth: 'bot', body: multipartForm({ uid: somchai }, [{ data: Buffer.from('%PDF-1.4 report'), type: 'application/pdf', filename: 'report.pdf' }]) });
		const token = await bed.replyToken({ uid: somchai });
		const items = [{ type: 'label', value: 'Restart', data: { text: 'restart' } }, { type: 'label', value: 'Ignore', data: { text: 'ignore' } }];
		await bed.call('/bot/v1/message/quickreply', { method: 'POST', auth: 'bot', json: { replyToken: token, message: { data: 'What now?', meta: { quickreply: { template: 'default', items } } } } });

		const mine = await chat(`?uid=${somchai}`);
		const [picture, file, quick] = all(mine, 'li.entry');
		expect(all(mine, 'li.entry')).toHaveLength(3);
		const p = one(picture, 'div.bubble.picture');
		expect([text(one(p, 'span.name')), text(one(p, 'span.size')), text(one(p, 'div.caption'))]).toEqual(['cpu.png', '2.0 KB, image/png', 'The graph']);
		expect(text(one(one(file, 'div.bubble.file'), 'span.name'))).toBe('report.pdf');
		expect(text(one(quick, 'div.meta'))).toContain('(reply)');
		expect(text(one(quick, 'div.bubble.text'))).toBe('What now?');
		expect(all(quick, 'button.tap.chip').map(tapOf)).toEqual([['q0', 'Restart', 'message'], ['q1', 'Ignore', 'message']]);

		const group = await chat(`?gid=${G}&tid=`);
		expect(all(group, 'li.entry').map((e) => text(one(e, 'div.bubble')))).toEqual(['Main chat']);
	});

	it('shows a tap as the person\'s bubble after the message, and escapes everything a message holds', async () => {
		const evil = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
		await push(G, [{ type: 'template', template: { type: 'buttons', text: evil, actions: [{ type: 'postback', label: '<b>Go</b>', data: 'go', text: `I said ${evil}` }] } }]);
		const seq = bed.emulator.messaging.records[0].seq;
		const tapped = await bed.call('/__emulator/tap', { method: 'POST', json: { seq, button: 'm0.b0', uid: nattaya, url: bed.webhook.url } });
		expect(tapped.status).toBe(200);
		const res = await bed.call('/__emulator/chat');
		expect(res.text).not.toMatch(/<script|<img src=x|<b>/);
		const root = one(parse(res.text), 'ol.chat');
		const [bot, person] = all(root, 'li.entry');
		expect(text(one(bot, 'div.text'))).toBe(evil);
		expect(classes(person)).toEqual(['entry', 'person']);
		expect(text(one(person, 'span.who'))).toBe('nattaya.p');
		expect(text(one(person, 'div.bubble.text'))).toBe(`I said ${evil}`);
		const bubble = one(person, 'div.bubble.tapped');
		expect(text(one(bubble, 'strong'))).toBe('<b>Go</b>');
		expect(text(bubble)).toContain(`on #${seq}`);
		expect(text(one(bubble, 'span.outcome'))).toBe('webhook 200');
	});
});

describe('the order of a tap and the answer to it', () => {
	it('puts the tap before the bot\'s reply that the webhook sent while the tap was being delivered', async () => {
		// A webhook that replies in the chat before it answers the delivery, as the Workplace Trigger does.
		const server = await startRecordingServer(async (delivered) => {
			const event = delivered.body.events[0];
			await bed.call('/bot/v1/message/text', { method: 'POST', auth: 'bot', body: multipartForm({ message: 'Answer recorded: approved', replyToken: event.replyToken }) });
			return { body: {} };
		});
		try {
			await push(G, [{ type: 'template', template: { type: 'buttons', text: 'Deploy?', actions: [{ type: 'postback', label: 'Approve', data: 'approve' }] } }]);
			const seq = bed.emulator.messaging.records[0].seq;
			const url = `${server.origin}/webhook`;
			expect((await bed.call('/__emulator/tap', { method: 'POST', json: { seq, button: 'm0.b0', uid: nattaya, url } })).status).toBe(200);
			const entries = all(await chat(), 'li.entry');
			expect(entries.map((e) => classes(e)[1])).toEqual(['bot', 'person', 'bot']);
			expect(text(one(entries[2], 'div.bubble.text'))).toBe('Answer recorded: approved');
		} finally {
			await server.close();
		}
	});
});

describe('GET /__emulator/ (the play page)', () => {
	it('loads the chat and taps through the admin routes, and shows opened pages only in a sandboxed frame', async () => {
		const res = await bed.call('/__emulator/');
		expect(res.status).toBe(200);
		expect(res.text).toContain("fetch('./chat?' + q)");
		expect(res.text).toContain("send('./tap', body)");
		expect(res.text).toMatch(/<iframe id="frame" sandbox="" /);
	});
});
