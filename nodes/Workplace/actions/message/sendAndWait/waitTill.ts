/**
 * Limit Wait Time read as the date the execution stops waiting (n8n's
 * option shape: `limitType` afterTimeInterval with `resumeAmount` and
 * `resumeUnit`, or atSpecifiedTime with `maxDateAndTime`). Pure.
 */
const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

export interface LimitWaitTime {
	limitType?: unknown;
	resumeAmount?: unknown;
	resumeUnit?: unknown;
	maxDateAndTime?: unknown;
}

/** The date to stop waiting, `undefined` for no limit, or the problem with the setting. */
export function limitDate(limit: LimitWaitTime | undefined, now: number): { date?: Date } | { problem: string } {
	if (!limit || Object.keys(limit).length === 0) return {};
	if (limit.limitType === 'atSpecifiedTime') {
		const value = limit.maxDateAndTime;
		const date = typeof value === 'string' || typeof value === 'number' ? new Date(value) : undefined;
		if (!date || Number.isNaN(date.getTime())) return { problem: `Max Date and Time must be a date, got ${JSON.stringify(value ?? null)}` };
		if (date.getTime() <= now) return { problem: `Max Date and Time is in the past (${date.toISOString()})` };
		return { date };
	}
	const amount = typeof limit.resumeAmount === 'string' ? Number(limit.resumeAmount) : limit.resumeAmount;
	if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0) {
		return { problem: `Amount must be a number above 0, got ${JSON.stringify(limit.resumeAmount ?? null)}` };
	}
	const unit = (limit.resumeUnit ?? 'hours') as string;
	if (!(unit in UNIT_MS)) return { problem: `Unit must be minutes, hours or days, got ${JSON.stringify(unit)}` };
	return { date: new Date(now + amount * UNIT_MS[unit as keyof typeof UNIT_MS]) };
}

/**
 * Whether a limit set as a date has passed at `now` (an answer arriving
 * before n8n has ended the wait). A limit set as an interval is counted from
 * when the question was sent, which the answer does not know: false.
 */
export function timeRanOut(limit: LimitWaitTime | undefined, now: number): boolean {
	if (!limit || limit.limitType !== 'atSpecifiedTime') return false;
	const value = limit.maxDateAndTime;
	const date = typeof value === 'string' || typeof value === 'number' ? new Date(value) : undefined;
	return date !== undefined && !Number.isNaN(date.getTime()) && date.getTime() <= now;
}
