/**
 * Playing a person's tap on a button the bot sent, as the phone would:
 * - a link (uri action) opens in the phone's browser: GET the page, then, as
 *   the person confirming it, submit its form (POST, or GET for a GET form);
 *   `confirm: false` stops after the GET, as a link preview or a person who
 *   only looks does;
 * - a postback goes to the bot's webhook as a signed postback event;
 * - a message action, or a v1 quick-reply item, comes back as a text message.
 * The browser part only ever talks to loopback addresses and, after the first
 * GET, only to the link's own origin (redirects and the form's action too), so
 * the emulator cannot be used to reach anything else.
 */
import { isPlainObject } from '../common/helpers';
import type { EmulatorConfig } from '../types';
import { type RecordedButton, findButton } from './buttons';
import { type HtmlForm, readForm } from './htmlForm';
import type { MessageRecord, MessagingState } from './state';
import { type Delivery, PlayError, type PlayRequest, playUser } from './webhook';

export interface TapRequest {
	/** The recorded message (its `seq` in GET /__emulator/messages). */
	seq: number;
	/** The button's address (`m0.b1`, `q2`, …), or its label when only one button has it. */
	button?: string;
	label?: string;
	/** The person tapping (default: the direct chat's user; in a group, required). */
	uid?: string;
	/** Postback and message taps: the webhook (default: config.webhookUrl). */
	url?: string;
	/** Links: false = only open the page (GET), do not confirm it. Default true. */
	confirm?: boolean;
	/** Links: values typed into the page's form, by field name (replace what the page filled in). */
	fields?: Record<string, string | string[]>;
	/** Links: which submit button to press (its text, value or name); default the first. */
	submit?: string;
	timeoutMs?: number;
}

/** One request the phone's browser made and what came back (body as text, at most BODY_MAX characters). */
export interface PageVisit {
	method: 'GET' | 'POST';
	url: string;
	status: number;
	contentType?: string;
	body: string;
	/** The redirects followed before this answer, in order. */
	redirects?: string[];
}

export interface TapResult {
	seq: number;
	button: Pick<RecordedButton, 'id' | 'label' | 'kind'>;
	uid: string;
	action: RecordedButton['action']['type'];
	/** Links: the page the GET showed, the form read from it, and the submission. */
	opened?: PageVisit;
	form?: { action: string; method: 'get' | 'post'; enctype: HtmlForm['enctype']; fields: Array<[string, string]>; submit?: string };
	submitted?: PageVisit;
	/** Links: why nothing was submitted (confirm false, or the page had no form). */
	note?: string;
	/** Postbacks and messages: the webhook delivery, as POST /__emulator/events reports it. */
	delivery?: Delivery & { event: Record<string, unknown>; replyToken: string };
}

/** A refusal of the tap itself (the request, not the page): status and message. */
export class TapError extends Error {
	constructor(
		readonly status: number,
		message: string,
	) {
		super(message);
	}
}

const BODY_MAX = 256 * 1024;
const MAX_REDIRECTS = 5;

/** Literal loopback hosts only; a name other than localhost would need DNS, which could point anywhere. */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.toLowerCase();
	if (host === 'localhost' || host === '[::1]') return true;
	const octets = host.split('.');
	return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/** A link the phone's browser may open: http(s) on a loopback host. */
export function checkLink(raw: string): URL {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new TapError(400, `the link is not a URL: ${raw}`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TapError(400, `the emulator opens only http(s) links, not ${url.protocol}`);
	if (!isLoopbackHost(url.hostname)) {
		throw new TapError(400, `the emulator opens links on loopback addresses only (localhost, 127.0.0.0/8, [::1]), not ${url.hostname}`);
	}
	return url;
}

/** The cookies a browser would keep for the one origin it visits. */
class CookieJar {
	private readonly cookies = new Map<string, string>();
	take(headers: Headers): void {
		for (const line of headers.getSetCookie()) {
			const [pair] = line.split(';');
			const at = pair.indexOf('=');
			if (at > 0) this.cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
		}
	}
	header(): Record<string, string> {
		return this.cookies.size === 0 ? {} : { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
	}
}

async function readBody(res: Response): Promise<string> {
	const text = await res.text();
	return text.length > BODY_MAX ? text.slice(0, BODY_MAX) : text;
}

/** Requests as a browser does, following redirects within the origin (303 and a POST's 301/302 turn into a GET). */
async function browse(
	origin: string,
	jar: CookieJar,
	first: { method: 'GET' | 'POST'; url: URL; body?: URLSearchParams | FormData },
	timeoutMs: number,
): Promise<PageVisit> {
	let { method, url, body } = first;
	const redirects: string[] = [];
	for (;;) {
		let res: Response;
		try {
			res = await fetch(url, {
				method,
				body,
				redirect: 'manual',
				headers: { 'user-agent': 'WorkplaceEmulator/1 (a phone browser)', accept: 'text/html,*/*;q=0.8', ...jar.header() },
				signal: AbortSignal.timeout(timeoutMs),
			});
		} catch (err) {
			const cause = (err as { cause?: { code?: string; message?: string } }).cause;
			throw new TapError(502, `${method} ${url.href} failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
		}
		jar.take(res.headers);
		const location = res.headers.get('location');
		if (res.status >= 300 && res.status < 400 && location !== null) {
			await res.body?.cancel();
			if (redirects.length >= MAX_REDIRECTS) throw new TapError(502, `more than ${MAX_REDIRECTS} redirects from ${first.url.href}`);
			const next = new URL(location, url);
			if (next.origin !== origin) throw new TapError(502, `the page redirected to ${next.origin}; the emulator stays on ${origin}`);
			if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
				method = 'GET';
				body = undefined;
			}
			redirects.push(next.href);
			url = next;
			continue;
		}
		const contentType = res.headers.get('content-type') ?? undefined;
		return { method, url: url.href, status: res.status, ...(contentType ? { contentType } : {}), body: await readBody(res), ...(redirects.length ? { redirects } : {}) };
	}
}

function pickSubmit(form: HtmlForm, wanted: string | undefined) {
	if (wanted === undefined) return form.submits[0];
	const found = form.submits.find((s) => s.text === wanted || s.value === wanted || s.name === wanted);
	if (!found) {
		const have = form.submits.map((s) => `"${s.text}"`).join(', ') || 'none';
		throw new TapError(400, `the page's form has no submit button "${wanted}"; it has ${have}`);
	}
	return found;
}

/** The fields a person would send: the page's, with the typed ones replacing those of the same name. */
function filledFields(form: HtmlForm, typed: TapRequest['fields'], submitter: ReturnType<typeof pickSubmit>): Array<[string, string]> {
	const names = new Set(Object.keys(typed ?? {}));
	const fields = form.fields.filter(([name]) => !names.has(name));
	for (const [name, value] of Object.entries(typed ?? {})) {
		for (const v of Array.isArray(value) ? value : [value]) fields.push([name, String(v)]);
	}
	if (submitter?.name) fields.push([submitter.name, submitter.value ?? '']);
	return fields;
}

async function openLink(link: string, req: TapRequest, result: TapResult): Promise<void> {
	const url = checkLink(link);
	const timeoutMs = req.timeoutMs ?? 30_000;
	const jar = new CookieJar();
	result.opened = await browse(url.origin, jar, { method: 'GET', url }, timeoutMs);
	if (result.opened.status >= 400) {
		result.note = `the page answered ${result.opened.status}; nothing was submitted`;
		return;
	}
	if (req.confirm === false) {
		result.note = 'confirm false: the page was opened, not confirmed';
		return;
	}
	const html = /html/i.test(result.opened.contentType ?? 'text/html') ? result.opened.body : '';
	const form = readForm(html);
	if (!form) {
		result.note = 'the page has no form to confirm; only the GET was made';
		return;
	}
	const submitter = pickSubmit(form, req.submit);
	const method = submitter?.formMethod === 'post' || submitter?.formMethod === 'get' ? submitter.formMethod : form.method;
	const actionRaw = submitter?.formAction ?? form.action;
	// An empty or missing action is the page's own URL (query included).
	const target = new URL(actionRaw === undefined || actionRaw === '' ? result.opened.url : actionRaw, result.opened.url);
	if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new TapError(502, `the page's form submits to ${target.protocol}; the emulator submits only http(s)`);
	if (target.origin !== url.origin) throw new TapError(502, `the page's form submits to ${target.origin}; the emulator stays on ${url.origin}`);
	const fields = filledFields(form, req.fields, submitter);
	result.form = { action: target.href, method, enctype: form.enctype, fields, ...(submitter ? { submit: submitter.text } : {}) };
	if (method === 'get') {
		target.search = new URLSearchParams(fields).toString();
		result.submitted = await browse(url.origin, jar, { method: 'GET', url: target }, timeoutMs);
		return;
	}
	let body: URLSearchParams | FormData;
	if (form.enctype === 'multipart/form-data') {
		body = new FormData();
		for (const [k, v] of fields) body.append(k, v);
	} else {
		body = new URLSearchParams(fields);
	}
	result.submitted = await browse(url.origin, jar, { method: 'POST', url: target, body }, timeoutMs);
}

function checkRequest(req: unknown): asserts req is TapRequest {
	if (!isPlainObject(req)) throw new TapError(400, 'JSON object expected');
	if (!Number.isInteger(req.seq)) throw new TapError(400, 'seq is required (the recorded message, as GET /__emulator/messages lists it)');
	if ((req.button === undefined) === (req.label === undefined)) throw new TapError(400, 'name the button by button (its id, e.g. m0.b1) or by label, one of the two');
	for (const key of ['button', 'label', 'uid', 'url', 'submit'] as const) {
		if (req[key] !== undefined && typeof req[key] !== 'string') throw new TapError(400, `${key} must be a string`);
	}
	if (req.confirm !== undefined && typeof req.confirm !== 'boolean') throw new TapError(400, 'confirm must be true or false');
	if (req.fields !== undefined) {
		const ok = isPlainObject(req.fields) && Object.values(req.fields).every((v) => typeof v === 'string' || (Array.isArray(v) && v.every((x) => typeof x === 'string')));
		if (!ok) throw new TapError(400, 'fields must map field names to strings (or arrays of strings)');
	}
	if (req.timeoutMs !== undefined && !(Number.isInteger(req.timeoutMs) && (req.timeoutMs as number) > 0)) throw new TapError(400, 'timeoutMs must be a positive integer');
}

/** The person: named, or the direct chat's own user; they must be able to see the chat. */
function tapper(messaging: MessagingState, record: MessageRecord, uid: string | undefined): string {
	const who = uid ?? record.target.uid;
	if (who === undefined) throw new TapError(400, `uid is required: message ${record.seq} went to a group, name the member who taps`);
	if (!messaging.activeUser(who)) throw new TapError(400, `uid ${who} is not an active user`);
	if (!messaging.canWrite(record.target, who)) {
		const chat = record.target.uid !== undefined ? `the direct chat of ${record.target.uid}` : `group ${record.target.gid}`;
		throw new TapError(403, `uid ${who} cannot see message ${record.seq}: it is in ${chat}`);
	}
	return who;
}

function outcomeOf(result: TapResult): string {
	if (result.delivery) return result.delivery.error ? `webhook unreachable: ${result.delivery.error}` : `webhook ${result.delivery.status}`;
	const steps = [result.opened, result.submitted].filter((v) => v !== undefined).map((v) => `${v.method} ${v.status}`);
	return [...steps, ...(result.note ? [result.note] : [])].join(', ');
}

/** Taps a button of a recorded message as the person `uid`; see the file's comment for what each kind does. */
export async function tap(messaging: MessagingState, config: EmulatorConfig, req: unknown): Promise<TapResult> {
	checkRequest(req);
	const record = messaging.records.find((r) => r.seq === req.seq);
	if (!record) throw new TapError(404, `no recorded message ${req.seq}`);
	const button = findButton(record, req);
	if (typeof button === 'string') throw new TapError(404, button);
	const uid = tapper(messaging, record, req.uid);
	const { action } = button;
	if (action.type === 'app') throw new TapError(400, `a ${action.actionType} action opens the service's own app; the emulator does not play it`);
	const at = messaging.reserveSeq();
	const result: TapResult = { seq: record.seq, button: { id: button.id, label: button.label, kind: button.kind }, uid, action: action.type };
	if (action.type === 'uri') {
		await openLink(action.linkUri, req, result);
	} else {
		const chat = record.target.uid !== undefined ? {} : { gid: record.target.gid, ...(record.target.tid ? { tid: record.target.tid } : {}) };
		const play: PlayRequest = {
			...(req.url !== undefined ? { url: req.url } : {}),
			...(req.timeoutMs !== undefined ? { timeoutMs: req.timeoutMs } : {}),
			uid,
			...chat,
			...(action.type === 'postback' ? { type: 'postback', data: action.data } : { type: 'message', text: action.text }),
		};
		let deliveries: Delivery[];
		try {
			deliveries = await playUser(messaging, config, play, { numbered: false });
		} catch (err) {
			if (err instanceof PlayError) throw new TapError(400, err.message);
			throw err;
		}
		const [d] = deliveries;
		result.delivery = { ...d, event: d.events[0], replyToken: d.replyTokens[0] };
	}
	messaging.recordTap({
		tapped: record.seq,
		target: record.target,
		uid,
		button: { id: button.id, label: button.label },
		action: action.type,
		outcome: outcomeOf(result),
		...(action.type === 'postback' && action.text !== undefined ? { text: action.text } : {}),
	}, at);
	return result;
}
