/**
 * The tappable things of a recorded bot message, each with an address that
 * stays the same for the record: `m<i>.b<j>` (action j of message i's buttons
 * template), `m<i>.c<k>.b<j>` (of carousel column k), `m<i>.a<j>` (imagemap
 * area j), `m<i>.q<j>` (quick-reply item j) for v2 messages, and `q<j>` for
 * the items of a v1 quick reply. Records were checked when they were accepted,
 * so the shapes here are the ones the schema allows.
 */
import { isPlainObject } from '../common/helpers';
import type { MessageRecord } from './state';

/** What a tap does: a v2 action, or a v1 quick-reply item (which comes back as a text message). */
export type TapAction =
	| { type: 'uri'; linkUri: string }
	| { type: 'postback'; data: string; text?: string }
	| { type: 'message'; text: string }
	/** workflowTemplate, workflow, workflows, library: they open the service's own app. */
	| { type: 'app'; actionType: string };

export interface RecordedButton {
	/** The address within the record, e.g. `m0.b1`. */
	id: string;
	/** The label shown (an imagemap area without one: `area <j+1>`). */
	label: string;
	/** Where it sits: a template button, a carousel column's button, an imagemap area, a quick reply. */
	kind: 'button' | 'column' | 'area' | 'quickReply' | 'link';
	action: TapAction;
}

type Obj = Record<string, unknown>;

export function tapAction(action: Obj): TapAction {
	switch (action.type) {
		case 'uri':
			return { type: 'uri', linkUri: action.linkUri as string };
		case 'postback':
			return { type: 'postback', data: action.data as string, ...(typeof action.text === 'string' ? { text: action.text } : {}) };
		case 'message':
			return { type: 'message', text: action.text as string };
		default:
			return { type: 'app', actionType: String(action.type) };
	}
}

/** http(s) links in a text, as a chat app finds them: up to a space or quote, without trailing punctuation. */
export function linksIn(text: string): Array<{ index: number; url: string }> {
	return [...text.matchAll(/https?:\/\/[^\s<>"']+/g)].map((m) => ({ index: m.index ?? 0, url: m[0].replace(/[.,;:!?)\]]+$/, '') }));
}

const textLinks = (text: string, prefix: string): RecordedButton[] =>
	linksIn(text).map((l, j) => ({ id: `${prefix}l${j}`, kind: 'link' as const, label: l.url, action: { type: 'uri' as const, linkUri: l.url } }));

const objects = (value: unknown): Obj[] => (Array.isArray(value) ? value.filter(isPlainObject) : []);

function labelled(id: string, kind: RecordedButton['kind'], action: Obj, fallback: string): RecordedButton {
	return { id, kind, label: typeof action.label === 'string' ? action.label : fallback, action: tapAction(action) };
}

/** The buttons of one v2 message object, addressed under `m<i>`. */
function messageButtons(message: Obj, i: number): RecordedButton[] {
	const out: RecordedButton[] = message.type === 'text' && typeof message.text === 'string' ? textLinks(message.text, `m${i}.`) : [];
	const template = message.template;
	if (message.type === 'template' && isPlainObject(template)) {
		if (template.type === 'buttons') {
			objects(template.actions).forEach((a, j) => out.push(labelled(`m${i}.b${j}`, 'button', a, `button ${j + 1}`)));
		} else {
			objects(template.columns).forEach((c, k) =>
				objects(c.actions).forEach((a, j) => out.push(labelled(`m${i}.c${k}.b${j}`, 'column', a, `button ${j + 1}`))),
			);
		}
	}
	if (message.type === 'imagemap') {
		objects(message.actions).forEach((a, j) => out.push(labelled(`m${i}.a${j}`, 'area', a, `area ${j + 1}`)));
	}
	const quick = message.quickReply;
	if (isPlainObject(quick)) {
		objects(quick.items).forEach((item, j) => {
			if (isPlainObject(item.action)) out.push(labelled(`m${i}.q${j}`, 'quickReply', item.action, `reply ${j + 1}`));
		});
	}
	return out;
}

/** Every tappable thing of a record, in the order a chat shows them. */
export function buttonsOf(record: MessageRecord): RecordedButton[] {
	if (record.messages) return record.messages.flatMap((m, i) => (isPlainObject(m) ? messageButtons(m, i) : []));
	const links = record.text === undefined ? [] : textLinks(record.text, '');
	const meta = record.meta;
	if (isPlainObject(meta) && isPlainObject(meta.quickreply)) {
		return links.concat(objects(meta.quickreply.items).map((item, j) => ({
			id: `q${j}`,
			kind: 'quickReply' as const,
			label: String(item.value),
			// The service sends a tap on a v1 quick-reply item to the bot as an ordinary text message.
			action: { type: 'message' as const, text: String((item.data as Obj).text) },
		})));
	}
	return links;
}

/** The button a tap names: by address, or by label when exactly one button has it. */
export function findButton(record: MessageRecord, by: { button?: string; label?: string }): RecordedButton | string {
	const buttons = buttonsOf(record);
	if (buttons.length === 0) return `message ${record.seq} has no buttons or quick replies`;
	const list = buttons.map((b) => `${b.id} "${b.label}"`).join(', ');
	if (by.button !== undefined) {
		return buttons.find((b) => b.id === by.button) ?? `message ${record.seq} has no button ${by.button}; it has ${list}`;
	}
	const matches = buttons.filter((b) => b.label === by.label);
	if (matches.length === 1) return matches[0];
	if (matches.length === 0) return `message ${record.seq} has no button labelled "${by.label}"; it has ${list}`;
	return `message ${record.seq} has ${matches.length} buttons labelled "${by.label}"; name one by its id: ${list}`;
}
