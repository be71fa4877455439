/**
 * The one rule for text ids that go into a URL path (group, user, topic ids,
 * and every other text id): the operations check each one with it before
 * anything is sent (actions/validation.ts textId, re-exported there), and the
 * transport's path builder applies it again as a backstop. Numeric ids follow
 * positiveId.ts.
 */

/** What a character refused by pathSafeIdProblem is called in a message. */
function characterName(c: string): string {
	if (/\s/.test(c)) return 'spaces or other whitespace';
	if (/[\u0000-\u001f\u007f-\u009f]/.test(c)) return 'control characters';
	return `"${c}"`;
}

/**
 * The rule for every text id that goes into a URL path (group, user, topic ids,
 * …): why `text` cannot be one, or undefined when it can. Refused: "/", "\", "?",
 * "#", "%", whitespace, control characters, and values made only of dots.
 * Servers and proxies may decode percent-encoded forms of these ("%2F", "%2E%2E")
 * back into path syntax, so encoding alone is not enough; everything else is
 * percent-encoded as one segment by the transport.
 */
export function pathSafeIdProblem(text: string): string | undefined {
	if (text === '') return 'is required';
	const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
	if (/^\.+$/.test(text)) return `must be an ID, not only dots (got ${shown})`;
	const bad = /[/\\?#%\s\u0000-\u001f\u007f-\u009f]/.exec(text);
	if (bad) return `must not contain ${characterName(bad[0])}: it goes into the request path (got ${shown})`;
	return undefined;
}
