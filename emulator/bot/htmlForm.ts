/**
 * Just enough HTML form reading to confirm a page as a person would: the first
 * form that posts (else the first form), its action, method and encoding, the
 * values a browser would submit (inputs, checked boxes, textareas, selects) and
 * its submit buttons. Not a general HTML parser: pages it cannot read give no
 * form, and the tap reports that instead of guessing.
 */

export interface SubmitButton {
	name?: string;
	value?: string;
	/** The text a person sees on it. */
	text: string;
	/** formaction / formmethod override the form's. */
	formAction?: string;
	formMethod?: string;
}

export interface HtmlForm {
	/** The raw action attribute (entities decoded); undefined when absent (the page's own URL). */
	action?: string;
	method: 'get' | 'post';
	enctype: 'application/x-www-form-urlencoded' | 'multipart/form-data';
	/** name/value pairs in document order, as a browser collects them (no submitter). */
	fields: Array<[string, string]>;
	submits: SubmitButton[];
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

export function decodeEntities(text: string): string {
	return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, body: string) => {
		if (body[0] === '#') {
			const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
			return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
		}
		return NAMED[body.toLowerCase()] ?? whole;
	});
}

/** Attributes of a start tag's inside (`name="v" name='v' name=v name`); names lower-cased, values decoded. */
export function attributes(inside: string): Record<string, string> {
	const out: Record<string, string> = {};
	const re = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
	for (const m of inside.matchAll(re)) {
		const name = m[1].toLowerCase();
		if (!(name in out)) out[name] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? '');
	}
	return out;
}

const stripTags = (html: string) => decodeEntities(html.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();

/** Comments, scripts and styles hold no form controls a browser would submit. */
const withoutInertParts = (html: string) =>
	html.replace(/<!--[\s\S]*?-->/g, '').replace(/<(script|style|template)\b[\s\S]*?<\/\1\s*>/gi, '');

function controls(body: string): Pick<HtmlForm, 'fields' | 'submits'> {
	const fields: Array<[string, string]> = [];
	const submits: SubmitButton[] = [];
	const re = /<(input|button|textarea|select)\b([^>]*)>(?:([\s\S]*?)<\/\1\s*>)?/gi;
	for (const m of body.matchAll(re)) {
		const tag = m[1].toLowerCase();
		const attrs = attributes(m[2]);
		if ('disabled' in attrs) continue;
		const name = attrs.name;
		// An input is a void element: whatever the pattern took as its content is the rest of the form.
		if (tag === 'input' && m[3] !== undefined) {
			re.lastIndex = (m.index ?? 0) + m[0].indexOf('>') + 1;
		}
		if (tag === 'button' || (tag === 'input' && ['submit', 'image'].includes((attrs.type ?? '').toLowerCase()))) {
			const type = (attrs.type ?? 'submit').toLowerCase();
			if (type !== 'submit' && type !== 'image') continue;
			submits.push({
				...(name ? { name } : {}),
				...('value' in attrs ? { value: attrs.value } : {}),
				text: tag === 'button' ? stripTags(m[3] ?? '') : (attrs.value ?? 'Submit'),
				...('formaction' in attrs ? { formAction: attrs.formaction } : {}),
				...('formmethod' in attrs ? { formMethod: attrs.formmethod.toLowerCase() } : {}),
			});
			continue;
		}
		if (!name) continue;
		if (tag === 'textarea') {
			// A browser drops one newline right after the start tag.
			fields.push([name, decodeEntities((m[3] ?? '').replace(/^\r?\n/, ''))]);
		} else if (tag === 'select') {
			const options = [...(m[3] ?? '').matchAll(/<option\b([^>]*)>([^<]*)/gi)].map((o) => ({ attrs: attributes(o[1]), text: o[2] }));
			const chosen = options.filter((o) => 'selected' in o.attrs && !('disabled' in o.attrs));
			const picked = 'multiple' in attrs ? chosen : [chosen[0] ?? options.find((o) => !('disabled' in o.attrs))].filter((o) => o !== undefined);
			for (const o of picked) fields.push([name, o.attrs.value ?? decodeEntities(o.text).trim()]);
		} else {
			const type = (attrs.type ?? 'text').toLowerCase();
			if (['reset', 'button', 'file'].includes(type)) continue;
			if ((type === 'checkbox' || type === 'radio') && !('checked' in attrs)) continue;
			fields.push([name, attrs.value ?? (type === 'checkbox' || type === 'radio' ? 'on' : '')]);
		}
	}
	return { fields, submits };
}

/** The form a person confirming the page would submit, or undefined when the page has none. */
export function readForm(html: string): HtmlForm | undefined {
	const forms = [...withoutInertParts(html).matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form\s*>/gi)].map((m) => ({ attrs: attributes(m[1]), body: m[2] }));
	const form = forms.find((f) => (f.attrs.method ?? '').toLowerCase() === 'post') ?? forms[0];
	if (!form) return undefined;
	const enctype = (form.attrs.enctype ?? '').toLowerCase() === 'multipart/form-data' ? 'multipart/form-data' : 'application/x-www-form-urlencoded';
	return {
		...('action' in form.attrs ? { action: form.attrs.action } : {}),
		method: (form.attrs.method ?? '').toLowerCase() === 'post' ? 'post' : 'get',
		enctype,
		...controls(form.body),
	};
}
