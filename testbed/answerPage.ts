/**
 * A person answering a Send and Wait question by link, as a browser does it:
 * the link opened (GET: the confirmation page or the form, with the page's
 * token), then the page's form sent back from the page's own origin with the
 * token and what the person filled in. Shared by the engine suites (against
 * testbed/waitingWebhooks.ts) and the end-to-end suites (against real n8n).
 */

export interface PageAnswer {
	status: number;
	body: string;
	headers: Headers;
}

const answered = async (response: Response): Promise<PageAnswer> => ({ status: response.status, body: await response.text(), headers: response.headers });

/**
 * Opens a link (GET). Node's fetch sends `Sec-Fetch-Mode: cors` whatever it is
 * told, so this opens it as a program does, without the other headers a
 * browser adds; a browser's own navigation is driven in the end-to-end suites.
 */
export const openLink = async (url: string, headers: Record<string, string> = {}): Promise<PageAnswer> => await answered(await fetch(url, { headers, redirect: 'manual' }));

/** The hidden fields of a page's form (the token among them), by name. */
export function hiddenFields(html: string): Record<string, string> {
	const unescape = (value: string) => value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
	return Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, name, value]) => [name, unescape(value)]));
}

/** Sends a form as the page's own form does: from the link's origin, url-encoded, or multipart (the answer forms). */
export async function postForm(url: string, fields: Record<string, string | string[]> = {}, options: { multipart?: boolean; headers?: Record<string, string> } = {}): Promise<PageAnswer> {
	const body = options.multipart ? new FormData() : new URLSearchParams();
	for (const [name, value] of Object.entries(fields)) for (const one of [value].flat()) body.append(name, one);
	const headers = { origin: new URL(url).origin, 'sec-fetch-site': 'same-origin', ...options.headers };
	return await answered(await fetch(url, { method: 'POST', body, headers, redirect: 'manual' }));
}

/** Opens the link, then sends its page's form with the page's hidden fields and `fields`; a page without a form is returned as it came. */
export async function answerByLink(url: string, fields: Record<string, string | string[]> = {}, multipart = false): Promise<PageAnswer> {
	const page = await openLink(url);
	if (page.status !== 200 || !page.body.includes('<form')) return page;
	return await postForm(url, { ...hiddenFields(page.body), ...fields }, { multipart });
}

/**
 * The parameters of n8n's If node (version 2) that sends an answered item on
 * its first output when the person approved (`data.approved`), else on its
 * second (a declined answer, or a wait that ran out without one).
 */
export const IF_APPROVED_PARAMETERS = {
	conditions: {
		options: { caseSensitive: true, leftValue: '', typeValidation: 'strict' },
		conditions: [{ id: 'approved', leftValue: '={{ $json.data ? $json.data.approved : false }}', rightValue: true, operator: { type: 'boolean', operation: 'true', singleValue: true } }],
		combinator: 'and',
	},
	options: {},
};
