/**
 * The one rule for tables keyed by outside text (ids in a listing, names in an
 * event, a form's labels, an option's values, a priority or file extension a
 * user typed): no prototype, own keys only. A plain object answers to
 * inherited names such as `constructor`, `toString`, `valueOf` or
 * `__proto__`, which would pass for a known key and hand back a function or
 * the prototype, and assigning `__proto__` to it replaces its prototype
 * instead of adding a key, so the entry silently disappears. So:
 *
 *  - look up with ownEntry / hasOwnEntry, never `table[key]` or `key in table`;
 *  - build a table in memory as a Map, or with keyedTable (no prototype);
 *  - keep a table n8n stores or passes on (static data, items) as a list of
 *    `[key, value]` pairs (entriesOf reads one back): n8n copies items and
 *    data without the keys `__proto__`, `constructor` and `prototype`;
 *  - refuse a name the user gives for a key n8n keeps (a binary field) when
 *    n8n would drop it (nameN8nDrops).
 */

/** Only the table's own entry for `key`; undefined for a key it lacks, inherited names included. */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
	return hasOwnEntry(table, key) ? table[key] : undefined;
}

/** Whether `key` is one of the table's own keys (never an inherited name). */
export function hasOwnEntry(table: object, key: string): boolean {
	return Object.prototype.hasOwnProperty.call(table, key);
}

/** A table with no prototype: every key, `__proto__` included, is an own entry, and nothing is inherited. */
export function keyedTable<T>(entries: Iterable<readonly [string, T]> = []): Record<string, T> {
	const table = Object.create(null) as Record<string, T>;
	for (const [key, value] of entries) table[key] = value;
	return table;
}

/**
 * A stored table read back as `[key, value]` pairs: a list of pairs as it is,
 * an object (an older form) by its own entries only; undefined for anything else.
 */
export function entriesOf(stored: unknown): Array<[string, unknown]> | undefined {
	if (Array.isArray(stored)) {
		const pairs = stored.filter((pair): pair is [string, unknown] => Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string');
		return pairs.length === stored.length ? pairs : undefined;
	}
	if (stored !== null && typeof stored === 'object') return Object.entries(stored);
	return undefined;
}

/** Keys n8n leaves out when it copies an item or its data; a field of such a name would vanish on the way. */
const KEYS_N8N_DROPS = ['__proto__', 'constructor', 'prototype'];

/** Why `name` cannot name a field n8n keeps (an output binary field), or undefined. */
export function nameN8nDrops(name: string): string | undefined {
	return KEYS_N8N_DROPS.includes(name) ? `"${name}" cannot name a field: n8n leaves a field of that name out when it passes items on` : undefined;
}
