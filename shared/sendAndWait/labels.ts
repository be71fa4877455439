/**
 * Button labels a person reads to decide: each must show what it says. A label
 * is refused when it holds a bidirectional control (which can make "Approve"
 * display as something else, or a text read right to left display as its
 * opposite), when nothing in it is visible (only spaces or zero-width
 * characters), and when two buttons read the same once invisible characters,
 * case and compatibility forms are set aside. Pure.
 */
import { characterCount } from '../characters';

/** Bidirectional embeddings, overrides, isolates and marks. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;
/** Characters that show nothing: separators and spaces, format characters (zero-width, joiners, BOM), controls. */
const INVISIBLE = /[\p{Z}\s\p{Cf}\p{Cc}]/gu;

/** What a label reads as: its visible characters, in one case and form. */
export const readsAs = (label: string): string => label.normalize('NFKC').replace(INVISIBLE, '').toLocaleLowerCase('en-US');

/** Why a label cannot be shown on a button, or undefined. */
export function labelProblem(label: string, max: number): string | undefined {
	if (BIDI_CONTROLS.test(label)) return 'must not contain bidirectional control characters (they change how the label reads)';
	if (readsAs(label) === '') return 'must show something: it has only spaces or invisible characters';
	const count = characterCount(label);
	if (count > max) return `must be at most ${max} characters (got ${count})`;
	return undefined;
}
