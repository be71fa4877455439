/**
 * Look-ups in tables keyed by user text (priorities, file extensions, media
 * types): only the table's own entries count. A plain object also answers to
 * inherited names such as `constructor`, `toString` or `__proto__`, which would
 * otherwise pass for a known key and hand back a function or the prototype.
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
	return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}
