/**
 * The due-date conversion (n8n date-time value → ISO 8601 UTC ending in Z),
 * across DST edges and unusual offsets, and cross-checked against luxon, which
 * n8n itself uses for dates (luxon is a test-only reference here, not a
 * dependency of the package).
 */
import { DateTime } from 'luxon';

import { toUtcIso, wallTimeToUtcMs, zoneOffsetMs } from '../../shared/dateTime';

const iso = (value: unknown, zone: string) => {
	const r = toUtcIso(value, zone);
	if (!r.ok) throw new Error(r.problem);
	return r.iso;
};

describe('toUtcIso: wall times in a zone', () => {
	it.each([
		// zone, wall time, expected UTC
		['UTC', '2025-01-15T09:00:00', '2025-01-15T09:00:00Z'],
		['Asia/Bangkok', '2025-06-01T09:00:00', '2025-06-01T02:00:00Z'],
		['Asia/Bangkok', '2025-01-01T03:00:00', '2024-12-31T20:00:00Z'],
		['Asia/Kathmandu', '2025-06-01T09:00:00', '2025-06-01T03:15:00Z'],
		['Pacific/Chatham', '2025-07-01T12:00:00', '2025-06-30T23:15:00Z'],
		['America/New_York', '2025-01-15T09:00:00', '2025-01-15T14:00:00Z'],
		['America/New_York', '2025-07-15T09:00:00', '2025-07-15T13:00:00Z'],
		// spring forward, 2025-03-09 02:00 EST → 03:00 EDT
		['America/New_York', '2025-03-09T01:59:59', '2025-03-09T06:59:59Z'],
		['America/New_York', '2025-03-09T02:30:00', '2025-03-09T07:30:00Z'], // in the gap: read as 03:30 EDT
		['America/New_York', '2025-03-09T03:00:00', '2025-03-09T07:00:00Z'],
		// fall back, 2025-11-02 02:00 EDT → 01:00 EST: 01:30 happens twice, the first is used
		['America/New_York', '2025-11-02T00:59:59', '2025-11-02T04:59:59Z'],
		['America/New_York', '2025-11-02T01:30:00', '2025-11-02T05:30:00Z'],
		['America/New_York', '2025-11-02T02:00:00', '2025-11-02T07:00:00Z'],
		['Europe/London', '2025-03-30T01:30:00', '2025-03-30T01:30:00Z'], // gap → 02:30 BST
		['Europe/London', '2025-10-26T01:30:00', '2025-10-26T00:30:00Z'], // overlap → BST
		['Australia/Sydney', '2025-04-06T02:30:00', '2025-04-05T15:30:00Z'], // overlap → AEDT
		['Australia/Sydney', '2025-10-05T02:30:00', '2025-10-04T16:30:00Z'], // gap → 03:30 AEDT
		['Australia/Lord_Howe', '2025-10-05T02:15:00', '2025-10-04T15:45:00Z'], // 30-minute gap
		['America/New_York', '2025-03-09', '2025-03-09T05:00:00Z'], // date only: midnight there
		['America/New_York', '2025-01-15 09:00', '2025-01-15T14:00:00Z'],
		['America/New_York', '2025-01-15T09:00:00.250', '2025-01-15T14:00:00.250Z'],
	])('%s %s → %s', (zone, wall, expected) => {
		expect(iso(wall, zone)).toBe(expected);
	});
});

describe('toUtcIso: values that carry their own zone', () => {
	it.each([
		['2025-03-09T02:30:00Z', '2025-03-09T02:30:00Z'],
		['2025-03-09T02:30:00.5z', '2025-03-09T02:30:00.500Z'],
		['2025-03-09T02:30:00+07:00', '2025-03-08T19:30:00Z'],
		['2025-03-09T02:30:00+0530', '2025-03-08T21:00:00Z'],
		['2025-03-09T02:30:00-03', '2025-03-09T05:30:00Z'],
	])('%s → %s whatever the workflow zone', (value, expected) => {
		expect(iso(value, 'America/New_York')).toBe(expected);
		expect(iso(value, 'Asia/Bangkok')).toBe(expected);
	});

	it('reads JS Dates and luxon DateTimes as the instants they are', () => {
		expect(iso(new Date('2025-03-09T07:30:00Z'), 'Asia/Bangkok')).toBe('2025-03-09T07:30:00Z');
		const dt = DateTime.fromISO('2025-07-15T09:00:00', { zone: 'America/New_York' });
		expect(iso(dt, 'Asia/Bangkok')).toBe('2025-07-15T13:00:00Z');
	});
});

describe('toUtcIso: rejects what is not a date-time', () => {
	it.each([
		['2025-02-30T10:00:00', /not a real calendar date/],
		['2025-13-01T10:00:00', /not a real calendar date/],
		['2025-01-01T24:00:00', /not a real calendar date/],
		['2025-01-01T10:00:00+25:00', /invalid UTC offset/],
		['tomorrow', /cannot be read as a date-time/],
		['01/02/2025', /cannot be read as a date-time/],
		[1736935200000, /not a number/],
		[null, /got null/],
		[true, /got boolean/],
		[{ when: 'soon' }, /got an object/],
		[new Date('nope'), /invalid date/],
		[DateTime.invalid('test'), /invalid date/],
	])('%p', (value, problem) => {
		const r = toUtcIso(value, 'America/New_York');
		expect(r.ok).toBe(false);
		if (!r.ok) expect(r.problem).toMatch(problem);
	});

	it('names an unknown timezone', () => {
		const r = toUtcIso('2025-01-01T10:00:00', 'Mars/Olympus_Mons');
		expect(r).toEqual({ ok: false, problem: 'cannot be read: unknown timezone "Mars/Olympus_Mons"' });
	});
});

describe('wallTimeToUtcMs agrees with luxon across a whole year', () => {
	const zones = [
		'America/New_York',
		'America/Santiago',
		'Europe/London',
		'Europe/Berlin',
		'Australia/Sydney',
		'Australia/Lord_Howe',
		'Pacific/Chatham',
		'Asia/Kathmandu',
		'Asia/Bangkok',
		'Africa/Casablanca',
	];
	it.each(zones)('%s, every 50 minutes of 2025', (zone) => {
		const start = Date.UTC(2025, 0, 1);
		const end = Date.UTC(2026, 0, 1);
		const mismatches: string[] = [];
		for (let wall = start; wall < end; wall += 50 * 60_000) {
			const w = new Date(wall);
			const expected = DateTime.fromObject(
				{
					year: w.getUTCFullYear(),
					month: w.getUTCMonth() + 1,
					day: w.getUTCDate(),
					hour: w.getUTCHours(),
					minute: w.getUTCMinutes(),
				},
				{ zone },
			).toMillis();
			const actual = wallTimeToUtcMs(wall, zone);
			// In an overlap luxon picks by the offset in force today; this helper always takes the earlier instant.
			const offsets = [wall - 86_400_000, wall + 86_400_000].map((t) => DateTime.fromMillis(t, { zone }).offset * 60_000);
			const readings = [...new Set(offsets.map((o) => wall - o))].filter(
				(t) => DateTime.fromMillis(t, { zone }).setZone('UTC', { keepLocalTime: true }).toMillis() === wall,
			);
			if (readings.length > 1) {
				if (actual !== Math.min(...readings)) mismatches.push(`${w.toISOString()}: ${new Date(actual).toISOString()} is not the earlier reading`);
				continue;
			}
			if (actual !== expected) mismatches.push(`${w.toISOString()}: ${new Date(actual).toISOString()} vs luxon ${new Date(expected).toISOString()}`);
		}
		expect(mismatches).toEqual([]);
	});

	it('zoneOffsetMs matches luxon offsets', () => {
		for (const zone of zones) {
			for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2026, 0, 1); t += 7 * 3_600_000) {
				expect(zoneOffsetMs(t, zone)).toBe(DateTime.fromMillis(t, { zone }).offset * 60_000);
			}
		}
	});
});
