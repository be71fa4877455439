/**
 * v2 message objects checked against the service's published message objects
 * and action types. Each check returns the first problem as
 * "<path> <what is wrong>" (e.g. `messages[0].template.actions[4]: at most 4
 * actions`), or undefined when the value is good. Unknown fields are ignored.
 */
import { isPlainObject } from '../../common/helpers';

/*
 * What the service accepts in a v2 message, written from what the service
 * states about its messages and actions, not from the node: the emulator is
 * the authority a test holds the node to, so a limit the node gets wrong is
 * refused here. Where the service states no limit, the emulator's own choice
 * is marked as such.
 */

/** The v2 message types: text, image, video, audio, imagemap and template (buttons or carousel). */
export const MESSAGE_TYPES = ['text', 'image', 'video', 'audio', 'imagemap', 'template'] as const;

/** The seven action types of the bot interface, chosen by an action's `type`. */
export const ACTION_TYPES = ['message', 'postback', 'workflowTemplate', 'workflow', 'workflows', 'library', 'uri'] as const;

/** The statuses a `workflows` action may filter the Workflows page by. */
export const WORKFLOW_STATUSES = ['awaiting', 'processing', 'completed', 'rejected', 'canceled'] as const;

/** A buttons or carousel template's image: `rectangle` (1.51:1, the default) or `square` (1:1). */
export const IMAGE_ASPECT_RATIOS = ['rectangle', 'square'] as const;

/** How a template's image fills its box: `cover` (the default) or `contain`. */
export const IMAGE_SIZES = ['cover', 'contain'] as const;

export const MESSAGE_LIMITS = {
	/** Messages per v2 push or reply call (not published; the emulator's choice). */
	messagesPerCall: 5,
	/** Characters of a text message or v1 text (not published; the emulator's choice). */
	text: 5000,
	/**
	 * Characters of a URL: a message's content, preview, imagemap base, thumbnail
	 * and quick-reply icon URLs are each at most 1000 characters. The emulator
	 * applies the same limit to the addresses actions open (`linkUri`, a library
	 * `url`), for which none is published.
	 */
	url: 1000,
	/** Characters of an action's label: at most 20, for every action. */
	label: 20,
	/** Characters of a buttons template's title: at most 40. */
	buttonsTitle: 40,
	/** Characters of a buttons template's text without an image and a title: at most 160. */
	buttonsText: 160,
	/** The same text when a thumbnail image or a title is present: at most 60. */
	buttonsTextWithImageOrTitle: 60,
	/** Actions of a buttons template: at most 4 (applied to each carousel column too, whose own limit is not published). */
	buttonsActions: 4,
	/** Columns of a carousel template: at most 10. */
	carouselColumns: 10,
	/** Actions (tappable areas) of an imagemap: at most 50. */
	imagemapActions: 50,
	/** Quick-reply items per message (not published; the emulator's choice). */
	quickReplyItems: 13,
} as const;

type Problem = string | undefined;
type Obj = Record<string, unknown>;
const L = MESSAGE_LIMITS;

const first = (...checks: Array<() => Problem>): Problem => {
	for (const check of checks) {
		const problem = check();
		if (problem) return problem;
	}
	return undefined;
};

function requiredString(o: Obj, key: string, path: string, max?: number): Problem {
	const v = o[key];
	if (typeof v !== 'string' || v.trim() === '') return `${path}.${key} is required (a non-empty string)`;
	if (max !== undefined && [...v].length > max) return `${path}.${key} must be at most ${max} characters`;
	return undefined;
}

function optionalString(o: Obj, key: string, path: string, max?: number): Problem {
	return o[key] === undefined ? undefined : requiredString(o, key, path, max);
}

function url(o: Obj, key: string, path: string, required: boolean): Problem {
	if (o[key] === undefined && !required) return undefined;
	const problem = requiredString(o, key, path, L.url);
	if (problem) return problem;
	try {
		const parsed = new URL(o[key] as string);
		if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return undefined;
	} catch {
		// fall through
	}
	return `${path}.${key} must be an http(s) URL`;
}

function oneOf(o: Obj, key: string, path: string, allowed: readonly string[]): Problem {
	const v = o[key];
	if (v === undefined || (typeof v === 'string' && allowed.includes(v))) return undefined;
	return `${path}.${key} must be one of ${allowed.join(', ')}`;
}

function integer(o: Obj, key: string, path: string, min: number): Problem {
	const v = o[key];
	if (typeof v !== 'number' || !Number.isInteger(v) || v < min) return `${path}.${key} must be an integer >= ${min}`;
	return undefined;
}

function list(o: Obj, key: string, path: string, max: number): Problem {
	const v = o[key];
	if (!Array.isArray(v) || v.length === 0) return `${path}.${key} is required (a non-empty array)`;
	if (v.length > max) return `${path}.${key} has ${v.length} entries; at most ${max} are allowed`;
	return undefined;
}

function objectAt(value: unknown, path: string): Problem {
	return isPlainObject(value) ? undefined : `${path} must be an object`;
}

/** An Action; `label` is required in buttons, carousel columns and quick replies, optional in an imagemap (which needs `area`). */
export function actionProblem(value: unknown, path: string, where: 'labelled' | 'imagemap'): Problem {
	if (!isPlainObject(value)) return `${path} must be an object`;
	const a = value;
	if (typeof a.type !== 'string' || !(ACTION_TYPES as readonly string[]).includes(a.type)) {
		return `${path}.type must be one of ${ACTION_TYPES.join(', ')}`;
	}
	const label = where === 'labelled' ? requiredString(a, 'label', path, L.label) : optionalString(a, 'label', path, L.label);
	if (label) return label;
	if (where === 'imagemap') {
		const area = a.area;
		const problem = first(
			() => objectAt(area, `${path}.area`),
			() => integer(area as Obj, 'x', `${path}.area`, 0),
			() => integer(area as Obj, 'y', `${path}.area`, 0),
			() => integer(area as Obj, 'width', `${path}.area`, 1),
			() => integer(area as Obj, 'height', `${path}.area`, 1),
		);
		if (problem) return problem;
	}
	switch (a.type) {
		case 'message':
			return requiredString(a, 'text', path, L.text);
		case 'postback':
			return first(
				() => (typeof a.data === 'string' && a.data !== '' ? undefined : `${path}.data is required (a non-empty string)`),
				() => optionalString(a, 'text', path, L.text),
			);
		case 'workflowTemplate':
			return requiredString(a, 'templateId', path);
		case 'workflow':
			return requiredString(a, 'workflowId', path);
		case 'workflows':
			return oneOf(a, 'status', path, WORKFLOW_STATUSES);
		case 'library':
			return optionalString(a, 'url', path, L.url);
		default:
			// uri: the action's field is linkUri; `uri`, as one of the service's own examples writes it, is refused with a hint.
			if (a.linkUri === undefined && a.uri !== undefined) return `${path}.linkUri is required (send linkUri, not uri)`;
			return url(a, 'linkUri', path, true);
	}
}

function actionsProblem(o: Obj, path: string, max: number): Problem {
	const problem = list(o, 'actions', path, max);
	if (problem) return problem;
	return first(...(o.actions as unknown[]).map((a, i) => () => actionProblem(a, `${path}.actions[${i}]`, 'labelled')));
}

/** Buttons template and carousel column share these fields. */
function cardProblem(c: Obj, path: string): Problem {
	const limit = c.thumbnailImageUrl !== undefined || c.title !== undefined ? L.buttonsTextWithImageOrTitle : L.buttonsText;
	return first(
		() => url(c, 'thumbnailImageUrl', path, false),
		() => optionalString(c, 'imageBackgroundColor', path),
		() => optionalString(c, 'title', path, L.buttonsTitle),
		() => requiredString(c, 'text', path, limit),
		() => actionsProblem(c, path, L.buttonsActions),
	);
}

const imageOptions = (o: Obj, path: string) =>
	first(
		() => oneOf(o, 'imageAspectRatio', path, IMAGE_ASPECT_RATIOS),
		() => oneOf(o, 'imageSize', path, IMAGE_SIZES),
	);

function templateProblem(t: unknown, path: string): Problem {
	if (!isPlainObject(t)) return `${path} is required (an object)`;
	if (t.type === 'buttons') return first(() => imageOptions(t, path), () => cardProblem(t, path));
	if (t.type === 'carousel') {
		return first(
			() => imageOptions(t, path),
			() => list(t, 'columns', path, L.carouselColumns),
			...(Array.isArray(t.columns) ? t.columns : []).map((c, i) => () => objectAt(c, `${path}.columns[${i}]`) ?? cardProblem(c as Obj, `${path}.columns[${i}]`)),
		);
	}
	return `${path}.type must be buttons or carousel`;
}

function imagemapProblem(m: Obj, path: string): Problem {
	return first(
		() => url(m, 'baseUrl', path, true),
		() => objectAt(m.baseSize, `${path}.baseSize`),
		() => integer(m.baseSize as Obj, 'width', `${path}.baseSize`, 1),
		() => integer(m.baseSize as Obj, 'height', `${path}.baseSize`, 1),
		() => optionalString(m, 'altText', path),
		() => list(m, 'actions', path, L.imagemapActions),
		...(Array.isArray(m.actions) ? m.actions : []).map((a, i) => () => actionProblem(a, `${path}.actions[${i}]`, 'imagemap')),
	);
}

function quickReplyProblem(q: unknown, path: string): Problem {
	if (!isPlainObject(q)) return `${path} must be an object with items`;
	const problem = list(q, 'items', path, L.quickReplyItems);
	if (problem) return problem;
	return first(
		...(q.items as unknown[]).map((item: unknown, i) => () => {
			const at = `${path}.items[${i}]`;
			if (!isPlainObject(item)) return `${at} must be an object`;
			if (item.type !== 'action') return `${at}.type must be action`;
			return url(item, 'imageUrl', at, false) ?? actionProblem(item.action, `${at}.action`, 'labelled');
		}),
	);
}

export function messageProblem(value: unknown, path: string): Problem {
	if (!isPlainObject(value)) return `${path} must be an object`;
	const m = value;
	const typed = (): Problem => {
		switch (m.type) {
			case 'text':
				return requiredString(m, 'text', path, L.text);
			case 'image':
			case 'video':
				return url(m, 'originalContentUrl', path, true) ?? url(m, 'previewImageUrl', path, true);
			case 'audio':
				return url(m, 'originalContentUrl', path, true) ?? integer(m, 'duration', path, 1);
			case 'imagemap':
				return imagemapProblem(m, path);
			case 'template':
				return templateProblem(m.template, `${path}.template`);
			default:
				return `${path}.type must be one of ${MESSAGE_TYPES.join(', ')}`;
		}
	};
	return first(typed, () => (m.quickReply === undefined ? undefined : quickReplyProblem(m.quickReply, `${path}.quickReply`)));
}

/** The `messages` array of a v2 push or reply. */
export function messagesProblem(value: unknown): Problem {
	if (!Array.isArray(value) || value.length === 0) return 'messages is required (a non-empty array)';
	if (value.length > L.messagesPerCall) return `messages has ${value.length} entries; at most ${L.messagesPerCall} per call`;
	return first(...value.map((m, i) => () => messageProblem(m, `messages[${i}]`)));
}
