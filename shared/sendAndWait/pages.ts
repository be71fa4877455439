/**
 * The pages a person meets after tapping an answer link: the confirmation
 * (a GET never decides anything: only the page's POST answers, with the
 * page's token), the answer form, the thank-you page and the pages of an answer
 * that cannot count. Plain HTML and inline CSS in the look of n8n's own form
 * pages (white card on a light grey page, n8n's orange button). Pure: text in,
 * HTML out, every value escaped.
 */
import type { FormField } from './form';
import { keyedTable } from '../ownEntry';
import { fieldName, FIELD_MAX, TEXTAREA_MAX } from './form';
import { TOKEN_FIELD } from './confirmation';

export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** Line breaks of a message kept as the chat shows them. */
const paragraph = (text: string) => `<p class="message">${escapeHtml(text).replace(/\r?\n/g, '<br>')}</p>`;

const STYLE = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;background:#f5f5f5;font-family:"Open Sans",-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#525356;display:flex;flex-direction:column;align-items:center;padding:24px 16px}
.card{width:100%;max-width:448px;background:#fff;border:1px solid #dbdfe7;border-radius:8px;box-shadow:0 4px 16px rgba(99,77,255,.06);padding:24px 24px 32px;margin-top:24px}
h1{font-size:20px;font-weight:600;color:#333;margin:0 0 8px;text-align:center}
.message{font-size:14px;line-height:1.5;margin:0 0 24px;text-align:center;color:#7e8186;white-space:normal;word-wrap:break-word}
label{display:block;font-size:14px;font-weight:600;color:#555;margin:0 0 6px}
.field{margin:0 0 20px}
.required::after{content:" *";color:#ff6d5a}
input[type=text],input[type=number],input[type=email],input[type=date],select,textarea{width:100%;font:inherit;font-size:14px;color:#333;border:1px solid #dbdfe7;border-radius:6px;padding:10px 12px;background:#fff}
textarea{min-height:120px;resize:vertical}
input:focus,select:focus,textarea:focus{outline:none;border-color:#ff6d5a}
.choice{display:flex;align-items:center;gap:8px;font-weight:400;margin:0 0 6px}
.error{color:#ea1f30;font-size:12px;margin-top:4px}
button{width:100%;height:48px;border:0;border-radius:6px;background:#ff6d5a;color:#fff;font:inherit;font-size:15px;font-weight:600;cursor:pointer}
button:hover{background:#ff5a44}
button.secondary{background:#fff;color:#525356;border:1px solid #dbdfe7}
.done{text-align:center;font-size:40px;margin:0 0 8px}
footer{margin-top:24px;font-size:12px;color:#909399}
`;

/** A whole HTML document: title, then the body's HTML. */
export function htmlPage(title: string, body: string): string {
	return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex,nofollow"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main class="card">${body}</main><footer>Sent by the Workplace bot through n8n</footer></body></html>`;
}

const tokenInput = (token: string) => `<input type="hidden" name="${TOKEN_FIELD}" value="${escapeHtml(token)}">`;

/**
 * Asks the person to confirm an approval answer; the button POSTs the page's
 * token to the same address (an empty form action is the page's own URL, query included).
 */
export function confirmPage(question: string, label: string, approve: boolean, token: string): string {
	return htmlPage(
		label,
		`<h1>${escapeHtml(label)}?</h1>${paragraph(question)}<form method="post" action="">${tokenInput(token)}<input type="hidden" name="confirm" value="${approve ? 'approve' : 'decline'}"><button type="submit"${approve ? '' : ' class="secondary"'}>${escapeHtml(label)}</button></form>`,
	);
}

function control(field: FormField, n: number, value: string[]): string {
	const name = fieldName(n);
	const required = field.required ? ' required' : '';
	const placeholder = field.placeholder ? ` placeholder="${escapeHtml(field.placeholder)}"` : '';
	const first = escapeHtml(value[0] ?? '');
	const maxlength = ` maxlength="${field.type === 'textarea' ? TEXTAREA_MAX : FIELD_MAX}"`;
	switch (field.type) {
		case 'textarea':
			return `<textarea id="${name}" name="${name}"${maxlength}${placeholder}${required}>${first}</textarea>`;
		case 'dropdown':
			return `<select id="${name}" name="${name}"${required}><option value="">Choose…</option>${field.options
				.map((o) => `<option${value.includes(o) ? ' selected' : ''}>${escapeHtml(o)}</option>`)
				.join('')}</select>`;
		case 'checkbox':
			return field.options
				.map(
					(o) =>
						`<label class="choice"><input type="checkbox" name="${name}" value="${escapeHtml(o)}"${value.includes(o) ? ' checked' : ''}>${escapeHtml(o)}</label>`,
				)
				.join('');
		default:
			return `<input id="${name}" type="${field.type}" name="${name}" value="${first}"${field.type === 'number' ? ' step="any"' : maxlength}${placeholder}${required}>`;
	}
}

/**
 * The answer form, with the page's token; `given` and `problems` refill it
 * after a refused submission. Sent as multipart/form-data: n8n 2.x accepts no
 * other body for a custom form's answer.
 */
export function formPage(
	options: { title: string; description: string; buttonLabel: string },
	fields: FormField[],
	token: string,
	given: Record<string, string[]> = keyedTable(),
	problems: Record<string, string> = keyedTable(),
): string {
	const controls = fields
		.map((field, n) => {
			const problem = problems[field.label];
			const labelFor = field.type === 'checkbox' ? '' : ` for="${fieldName(n)}"`;
			return `<div class="field"><label${labelFor}${field.required ? ' class="required"' : ''}>${escapeHtml(field.label)}</label>${control(field, n, given[fieldName(n)] ?? [])}${problem ? `<div class="error">${escapeHtml(problem)}</div>` : ''}</div>`;
		})
		.join('');
	const heading = options.title.trim() === '' ? '' : `<h1>${escapeHtml(options.title)}</h1>`;
	return htmlPage(
		options.title || 'Your answer',
		`${heading}${options.description ? paragraph(options.description) : ''}<form method="post" action="" enctype="multipart/form-data">${tokenInput(token)}${controls}<button type="submit">${escapeHtml(options.buttonLabel)}</button></form>`,
	);
}

const notice = (title: string, heading: string, text: string) => htmlPage(title, `<h1>${escapeHtml(heading)}</h1><p class="message">${escapeHtml(text)}</p>`);

export const answeredPage = () =>
	htmlPage('Answer recorded', '<div class="done">✓</div><h1>Got it, thanks</h1><p class="message">Your answer was recorded. This page can be closed now.</p>');

/** A second answer to a question answered already: it changes nothing. */
export const alreadyAnsweredPage = () =>
	notice('Already answered', 'This question was answered already', 'Another answer came first and counts; yours changed nothing. This page can be closed now.');

/** The question's time to answer ran out. */
export const expiredPage = () => notice('No longer open', 'This question is no longer open', 'Its time to answer ran out; your answer changed nothing.');

/** The link is not the open question's (an earlier question of the same workflow, or no question at all). */
export const closedPage = () => notice('No longer open', 'This question is no longer open', 'This link belongs to a question that was answered or asked again since; your answer changed nothing.');

/** A post that did not come from the answer's own page: another site's, or without the page's token. */
export const notConfirmedPage = () =>
	notice('Not confirmed', 'Please answer on the question\'s own page', 'This answer did not come from the page the question\'s link opens, so it changed nothing. Open the link from the chat and confirm there.');

/** When the question is answered in the chat only, a link (a guess, a copied URL) answers nothing. */
export const answerInChatPage = () =>
	notice('Answer in the chat', 'Please answer in the chat', 'This question takes its answer from the buttons in the chat, where it is known who answered.');

export const notRecordedPage = () => notice('Not recorded', 'Your answer could not be recorded', 'Please try again later.');

export const formUnavailablePage = () => notice('Form not available', 'This form cannot be shown', 'Its fields are not set up correctly. Please tell the person who sent it.');
