/**
 * Characters as a person sees them: grapheme clusters (a flag, a family emoji,
 * a Thai consonant with its vowel and tone marks is one each), not UTF-16 units
 * or code points. The public pages state the message limits ("at most 20
 * characters") without a unit, so the node counts what the reader sees.
 */
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export function characterCount(text: string): number {
	let count = 0;
	for (const segment of graphemes.segment(text)) if (segment.segment !== '') count++;
	return count;
}
