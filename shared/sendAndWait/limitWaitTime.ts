/**
 * Limit Wait Time read as the moment the wait ends (n8n's option shape:
 * `limitType` afterTimeInterval with `resumeAmount` and `resumeUnit`, or
 * atSpecifiedTime with `maxDateAndTime`). Pure. Values come from expressions
 * too, so a unit is looked up among the table's own entries only, and the end
 * must fall before the date n8n reads as "wait indefinitely" (WAIT_INDEFINITELY,
 * 3000-01-01): a later one would wait for ever, an unreadable one would be
 * stored as an invalid date.
 */
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { ownEntry } from '../ownEntry';

/** Milliseconds per unit; a unit named by an expression is looked up with ownEntry. */
export const UNIT_MS: Readonly<Record<string, number>> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

export interface LimitWaitTime {
	limitType?: unknown;
	resumeAmount?: unknown;
	resumeUnit?: unknown;
	maxDateAndTime?: unknown;
}

const shown = (value: unknown) => JSON.stringify(value ?? null) ?? String(value);

/** A date parameter's value (text, epoch number, Date, or a date object of an expression such as `$now`). */
function asDate(value: unknown): Date | undefined {
	if (value instanceof Date) return value;
	if (typeof value === 'string' || typeof value === 'number') return new Date(value);
	if (value !== null && typeof value === 'object' && !Array.isArray(value)) return new Date(String(value));
	return undefined;
}

/** Why a wait ending at `end` cannot be, or undefined when n8n can wait until then. */
function outOfRange(end: number, now: number, field: string): string | undefined {
	if (!Number.isFinite(end)) return `${field} gives no date n8n can wait until`;
	if (end <= now) return `${field} is in the past (${new Date(end).toISOString()})`;
	if (end >= WAIT_INDEFINITELY.getTime()) {
		return `${field} ends the wait on or after ${WAIT_INDEFINITELY.toISOString()}, which n8n reads as waiting indefinitely; leave Limit Wait Time off for that`;
	}
	return undefined;
}

/** The moment to stop waiting (epoch ms), `{}` for no limit, or the problem with the setting, naming the field. */
export function limitEnd(limit: LimitWaitTime | undefined, now: number): { endsAt?: number } | { problem: string } {
	if (!limit || Object.keys(limit).length === 0) return {};
	const type = limit.limitType ?? 'afterTimeInterval';
	if (type === 'atSpecifiedTime') {
		const date = asDate(limit.maxDateAndTime);
		if (!date || Number.isNaN(date.getTime())) return { problem: `Max Date and Time must be a date, got ${shown(limit.maxDateAndTime)}` };
		const problem = outOfRange(date.getTime(), now, 'Max Date and Time');
		return problem ? { problem } : { endsAt: date.getTime() };
	}
	if (type !== 'afterTimeInterval') return { problem: `Limit Type must be After Time Interval or At Specified Time, got ${shown(type)}` };
	const unit = limit.resumeUnit ?? 'hours';
	const unitMs = typeof unit === 'string' ? ownEntry(UNIT_MS, unit) : undefined;
	if (unitMs === undefined) return { problem: `Unit must be minutes, hours or days, got ${shown(unit)}` };
	const amount = typeof limit.resumeAmount === 'string' && limit.resumeAmount.trim() !== '' ? Number(limit.resumeAmount) : limit.resumeAmount;
	const end = typeof amount === 'number' ? now + amount * unitMs : NaN;
	if (typeof amount !== 'number' || !Number.isFinite(end) || !(end > now)) {
		return { problem: `Amount must be a number above 0, got ${shown(limit.resumeAmount)}` };
	}
	const problem = outOfRange(end, now, 'Amount');
	return problem ? { problem } : { endsAt: end };
}
