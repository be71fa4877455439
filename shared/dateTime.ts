/**
 * n8n date-time parameter values → ISO 8601 UTC ending in Z.
 *
 * A `dateTime` parameter arrives as a string without a zone (meant in the
 * workflow's timezone), an ISO string with an offset or Z, or, from an
 * expression, a luxon DateTime or a JS Date. Wall times are converted with
 * Intl.DateTimeFormat offset arithmetic, so every IANA zone works, DST
 * included, without a date library. Pure: no n8n types, unit-tested.
 */

export type UtcResult = { ok: true; iso: string } | { ok: false; problem: string };

const ISO_LIKE =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
	let f = formatters.get(timeZone);
	if (!f) {
		f = new Intl.DateTimeFormat('en-US', {
			timeZone,
			hourCycle: 'h23',
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
			era: 'short',
		});
		formatters.set(timeZone, f);
	}
	return f;
}

/** Whether Intl knows the zone name. */
export function isValidTimeZone(timeZone: string): boolean {
	try {
		formatterFor(timeZone);
		return true;
	} catch {
		return false;
	}
}

/** Offset of `timeZone` from UTC at the instant `utcMs`, in milliseconds (local minus UTC). */
export function zoneOffsetMs(utcMs: number, timeZone: string): number {
	const parts: Record<string, string> = {};
	for (const p of formatterFor(timeZone).formatToParts(new Date(utcMs))) parts[p.type] = p.value;
	let year = Number(parts.year);
	if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
	const hour = Number(parts.hour) % 24;
	const asUtc = Date.UTC(year, Number(parts.month) - 1, Number(parts.day), hour, Number(parts.minute), Number(parts.second));
	const wholeSecond = Math.floor(utcMs / 1000) * 1000;
	return asUtc - wholeSecond;
}

const DAY_MS = 86_400_000;

/**
 * The instant at which the wall clock of `timeZone` reads `wallMs` (a wall
 * time written as if it were UTC). In a gap (clocks set forward) the time is
 * moved forward by the gap, as luxon does; in an overlap (clocks set back)
 * the earlier instant is used, always (Temporal's "compatible" rule; luxon's
 * choice there depends on the date it runs on).
 */
export function wallTimeToUtcMs(wallMs: number, timeZone: string): number {
	const before = zoneOffsetMs(wallMs - DAY_MS, timeZone);
	const candidates = new Set([before, zoneOffsetMs(wallMs, timeZone), zoneOffsetMs(wallMs + DAY_MS, timeZone)]);
	const valid: number[] = [];
	for (const offset of candidates) {
		const utc = wallMs - offset;
		if (zoneOffsetMs(utc, timeZone) === offset) valid.push(utc);
	}
	if (valid.length > 0) return Math.min(...valid);
	// A gap: read the wall time with the offset in force before the jump.
	return wallMs - before;
}

function isoFromMs(ms: number): string {
	// Whole seconds are written without ".000", as the service writes its own examples.
	const iso = new Date(ms).toISOString();
	return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

function fromParts(m: RegExpExecArray, timeZone: string): UtcResult {
	const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
	const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
	const millis = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
	const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);
	const check = new Date(wall);
	if (
		check.getUTCFullYear() !== year ||
		check.getUTCMonth() !== month - 1 ||
		check.getUTCDate() !== day ||
		check.getUTCHours() !== hour ||
		check.getUTCMinutes() !== minute ||
		check.getUTCSeconds() !== second
	) {
		return { ok: false, problem: 'is not a real calendar date and time' };
	}
	const zone = m[8];
	if (zone === undefined) {
		if (!isValidTimeZone(timeZone)) return { ok: false, problem: `cannot be read: unknown timezone "${timeZone}"` };
		return { ok: true, iso: isoFromMs(wallTimeToUtcMs(wall, timeZone)) };
	}
	if (zone === 'Z' || zone === 'z') return { ok: true, iso: isoFromMs(wall) };
	const digits = zone.slice(1).replace(':', '');
	const offsetHours = Number(digits.slice(0, 2));
	const offsetMinutes = Number(digits.slice(2) || '0');
	if (offsetHours > 23 || offsetMinutes > 59) return { ok: false, problem: `has an invalid UTC offset "${zone}"` };
	const sign = zone[0] === '-' ? -1 : 1;
	return { ok: true, iso: isoFromMs(wall - sign * (offsetHours * 60 + offsetMinutes) * 60_000) };
}

/** A luxon DateTime, recognised by shape so luxon need not be a dependency. */
function luxonMillis(value: object): number | undefined {
	const v = value as { isLuxonDateTime?: unknown; isValid?: unknown; toMillis?: unknown };
	if (v.isLuxonDateTime !== true || typeof v.toMillis !== 'function') return undefined;
	if (v.isValid === false) return Number.NaN;
	return (v.toMillis as () => number).call(value);
}

/**
 * Converts one date-time parameter value to ISO 8601 UTC ending in Z.
 * `timeZone` is the workflow's (IANA name); it applies only to values
 * written without a zone.
 */
export function toUtcIso(value: unknown, timeZone: string): UtcResult {
	if (typeof value === 'string') {
		const text = value.trim();
		const m = ISO_LIKE.exec(text);
		if (!m) {
			return {
				ok: false,
				problem: `cannot be read as a date-time (expected ISO 8601 such as "2025-01-31T17:00:00", got "${text.slice(0, 40)}")`,
			};
		}
		return fromParts(m, timeZone);
	}
	if (value !== null && typeof value === 'object') {
		let ms: number | undefined;
		if (Object.prototype.toString.call(value) === '[object Date]') ms = (value as Date).getTime();
		else ms = luxonMillis(value);
		if (ms === undefined) return { ok: false, problem: 'must be a date-time, got an object' };
		if (!Number.isFinite(ms)) return { ok: false, problem: 'is an invalid date' };
		return { ok: true, iso: isoFromMs(ms) };
	}
	if (typeof value === 'number') {
		// Seconds and milliseconds since 1970 cannot be told apart safely; a wrong date is worse than an error.
		return { ok: false, problem: 'must be a date-time, not a number (use e.g. {{ DateTime.fromMillis(x) }} or an ISO string)' };
	}
	return { ok: false, problem: `must be a date-time, got ${value === null ? 'null' : typeof value}` };
}
