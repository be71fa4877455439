/**
 * What the bot sent, drawn the way a chat shows it: text bubbles, pictures and
 * files, buttons templates as cards, carousels as a row of cards, imagemaps as
 * an image with tappable areas, quick replies as chips under the message; and
 * the people's taps as their own bubbles. Every tappable thing is a
 * `<button class="tap" data-seq data-button>` the play page turns into a tap
 * (POST /__emulator/tap). Built on the server from checked records; every value
 * is escaped, so nothing a message holds can run in the page.
 */
import { isPlainObject } from '../common/helpers';
import { type RecordedButton, buttonsOf, linksIn } from './buttons';
import type { ChatTarget, MessageRecord, TapRecord } from './state';

export interface ChatNames {
	user(uid: string): string | undefined;
	group(gid: string): string | undefined;
	topic(tid: string): string | undefined;
}

type Obj = Record<string, unknown>;

export const escapeHtml = (s: string) =>
	s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const attr = (name: string, value: string) => ` ${name}="${escapeHtml(value)}"`;

function chatName(target: ChatTarget, names: ChatNames): string {
	if (target.uid !== undefined) return `Direct chat with ${names.user(target.uid) ?? target.uid}`;
	const group = names.group(target.gid) ?? target.gid;
	return target.tid ? `${group} › ${names.topic(target.tid) ?? target.tid}` : group;
}

const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/** A tappable button; a link shows where it goes on hover, as a phone's long-press does. */
function tapButton(seq: number, button: RecordedButton, cls: string, style = ''): string {
	const where = button.action.type === 'uri' ? attr('title', button.action.linkUri) : button.action.type === 'postback' ? attr('title', `postback: ${button.action.data}`) : '';
	return (
		`<button type="button" class="tap ${cls}"${attr('data-seq', String(seq))}${attr('data-button', button.id)}${attr('data-action', button.action.type)}${where}${style}>` +
		`${escapeHtml(button.label)}${button.action.type === 'uri' && button.kind !== 'link' ? ' <span class="link-mark" aria-hidden="true">↗</span>' : ''}</button>`
	);
}

function card(c: Obj, seq: number, buttons: RecordedButton[], cls: string, square: boolean): string {
	const thumb = str(c.thumbnailImageUrl);
	const bg = str(c.imageBackgroundColor);
	return (
		`<div class="card ${cls}">` +
		(thumb ? `<img class="thumb${square ? ' square' : ''}"${attr('src', thumb)} alt="picture"${bg ? attr('style', `background:${bg}`) : ''}>` : '') +
		(c.title !== undefined ? `<div class="title">${escapeHtml(str(c.title))}</div>` : '') +
		`<div class="text">${escapeHtml(str(c.text))}</div>` +
		`<div class="actions">${buttons.map((b) => tapButton(seq, b, 'card-button')).join('')}</div>` +
		`</div>`
	);
}

/** A text with its links as tappable inline buttons (`<prefix>l<j>`), the rest escaped. */
function textWithLinks(text: string, seq: number, buttons: RecordedButton[], prefix: string): string {
	let out = '';
	let at = 0;
	linksIn(text).forEach((link, j) => {
		const button = buttons.find((b) => b.id === `${prefix}l${j}`);
		out += escapeHtml(text.slice(at, link.index));
		out += button ? tapButton(seq, button, 'text-link') : escapeHtml(link.url);
		at = link.index + link.url.length;
	});
	return out + escapeHtml(text.slice(at));
}

const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(3)}%`;

function v2Message(m: Obj, i: number, seq: number, buttons: RecordedButton[]): string {
	const mine = (prefix: string) => buttons.filter((b) => b.id.startsWith(prefix));
	let body: string;
	switch (m.type) {
		case 'text':
			body = `<div class="bubble text">${textWithLinks(str(m.text), seq, buttons, `m${i}.`)}</div>`;
			break;
		case 'image':
			body = `<div class="bubble image"><a${attr('href', str(m.originalContentUrl))} target="_blank" rel="noopener noreferrer"><img${attr('src', str(m.previewImageUrl))} alt="image"></a></div>`;
			break;
		case 'video':
			body = `<div class="bubble video"><a${attr('href', str(m.originalContentUrl))} target="_blank" rel="noopener noreferrer"><img${attr('src', str(m.previewImageUrl))} alt="video"><span class="play" aria-hidden="true">▶</span></a></div>`;
			break;
		case 'audio':
			body = `<div class="bubble audio"><a${attr('href', str(m.originalContentUrl))} target="_blank" rel="noopener noreferrer">♪ audio</a> <span class="duration">${(Number(m.duration) / 1000).toFixed(1)} s</span></div>`;
			break;
		case 'imagemap': {
			const size = m.baseSize as { width: number; height: number };
			const areas = mine(`m${i}.a`).map((b, j) => {
				const area = ((m.actions as Obj[])[j].area ?? {}) as { x: number; y: number; width: number; height: number };
				return tapButton(seq, b, 'area', attr('style', `left:${pct(area.x, size.width)};top:${pct(area.y, size.height)};width:${pct(area.width, size.width)};height:${pct(area.height, size.height)}`));
			});
			body =
				`<div class="imagemap"${attr('style', `aspect-ratio:${size.width} / ${size.height}`)}${m.altText !== undefined ? attr('title', str(m.altText)) : ''}>` +
				`<img${attr('src', str(m.baseUrl))} alt="${escapeHtml(str(m.altText) || 'imagemap')}">${areas.join('')}</div>`;
			break;
		}
		default: {
			const t = m.template as Obj;
			const square = t.imageAspectRatio === 'square';
			if (t.type === 'buttons') {
				body = card(t, seq, mine(`m${i}.b`), 'buttons', square);
			} else {
				const columns = (t.columns as Obj[]).map((c, k) => card(c, seq, mine(`m${i}.c${k}.`), 'column', square));
				body = `<div class="carousel">${columns.join('')}</div>`;
			}
		}
	}
	const quick = mine(`m${i}.q`);
	return body + (quick.length ? `<div class="quick-replies">${quick.map((b) => tapButton(seq, b, 'chip')).join('')}</div>` : '');
}

function recordBody(r: MessageRecord): string {
	const buttons = buttonsOf(r);
	if (r.messages) return r.messages.map((m, i) => (isPlainObject(m) ? v2Message(m, i, r.seq, buttons) : '')).join('');
	if (r.file) {
		const kind = r.route.endsWith('/picture') ? 'picture' : 'file';
		const label = `${kind === 'picture' ? '🖼' : '📄'} <span class="name">${escapeHtml(r.file.filename)}</span> <span class="size">${bytes(r.file.size)}, ${escapeHtml(r.file.contentType)}</span>`;
		return `<div class="bubble ${kind}">${label}${r.caption ? `<div class="caption">${escapeHtml(r.caption)}</div>` : ''}</div>`;
	}
	const text = `<div class="bubble text">${textWithLinks(r.text ?? '', r.seq, buttons, '')}</div>`;
	const chips = buttons.filter((b) => b.kind === 'quickReply');
	return chips.length ? `${text}<div class="quick-replies">${chips.map((b) => tapButton(r.seq, b, 'chip')).join('')}</div>` : text;
}

const time = (iso: string) => `<time${attr('datetime', iso)}>${escapeHtml(iso.slice(11, 19))}</time>`;

function botEntry(r: MessageRecord, names: ChatNames): string {
	const direct = r.target.uid !== undefined ? attr('data-uid', r.target.uid) : '';
	return (
		`<li class="entry bot"${attr('data-seq', String(r.seq))}${direct}>` +
		`<div class="meta"><span class="who">Bot</span> to <span class="chat-name">${escapeHtml(chatName(r.target, names))}</span>` +
		`${r.target.replyToken ? ' (reply)' : ''} · ${time(r.time)} · <span class="seq">#${r.seq}</span> <span class="route">${escapeHtml(r.route)}</span></div>` +
		recordBody(r) +
		`</li>`
	);
}

function tapEntry(t: TapRecord, names: ChatNames): string {
	const who = names.user(t.uid) ?? t.uid;
	return (
		`<li class="entry person"${attr('data-seq', String(t.seq))}>` +
		`<div class="meta"><span class="who">${escapeHtml(who)}</span> in <span class="chat-name">${escapeHtml(chatName(t.target, names))}</span> · ${time(t.time)} · <span class="seq">#${t.seq}</span></div>` +
		(t.text !== undefined ? `<div class="bubble text">${escapeHtml(t.text)}</div>` : '') +
		`<div class="bubble tapped">Tapped <strong>${escapeHtml(t.button.label)}</strong> on #${t.tapped} <span class="outcome">${escapeHtml(t.outcome)}</span></div>` +
		`</li>`
	);
}

/** The chat as an ordered list, oldest first; an empty chat says so. */
export function renderChat(records: MessageRecord[], taps: TapRecord[], names: ChatNames): string {
	const entries = [...records.map((r) => ({ seq: r.seq, html: botEntry(r, names) })), ...taps.map((t) => ({ seq: t.seq, html: tapEntry(t, names) }))].sort((a, b) => a.seq - b.seq);
	if (entries.length === 0) return '<ol class="chat"><li class="empty">The bot has sent nothing yet.</li></ol>';
	return `<ol class="chat">${entries.map((e) => e.html).join('')}</ol>`;
}
