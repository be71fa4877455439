/**
 * The node's request options ("Retry and Timeout", "Requests in Parallel"):
 * their names, defaults and limits, and item i's values checked locally.
 */
import type { IDataObject } from 'n8n-workflow';

import { invalid } from '../shared/invalid';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';
import type { Context } from './types';

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Name of the node's "Retry and Timeout" collection (actions/resources.ts adds it to every resource that sends requests). */
export const RETRY_OPTIONS = 'retryOptions';

/** Name of the node's "Requests in Parallel" option (read by actions/router.ts), and its largest value. */
export const REQUESTS_IN_PARALLEL = 'requestsInParallel';
export const MAX_REQUESTS_IN_PARALLEL = 50;

export interface RequestSettings {
	policy: RetryPolicy;
	timeoutMs: number;
}

/**
 * The retry policy and timeout item i asked for in "Retry and Timeout", checked
 * locally; the defaults where it asked for nothing. Load-options calls (no items) use the defaults.
 */
export function requestSettings(ctx: Context, itemIndex: number | undefined): RequestSettings {
	const defaults = { policy: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };
	if (itemIndex === undefined || !('getInputData' in ctx)) return defaults;
	const raw = ctx.getNodeParameter(RETRY_OPTIONS, itemIndex, {}) as unknown;
	if (!raw || typeof raw !== 'object') return defaults;
	const options = raw as IDataObject;
	const number = (key: string, field: string, min: number, max: number, whole: boolean): number | undefined => {
		const value = options[key];
		if (value === undefined || value === null || value === '') return undefined;
		const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
		if (typeof n !== 'number' || !Number.isFinite(n) || (whole && !Number.isInteger(n))) {
			throw invalid(ctx, itemIndex, field, `expected ${whole ? 'a whole number' : 'a number'}, got ${JSON.stringify(value)}`);
		}
		if (n < min || n > max) throw invalid(ctx, itemIndex, field, `must be between ${min} and ${max} (got ${n})`);
		return n;
	};
	const maxAttempts = number('maxAttempts', 'Max Attempts', 1, 10, true);
	const maxWait = number('maxWaitSeconds', 'Max Wait (Seconds)', 0, 3600, false);
	const timeout = number('timeoutSeconds', 'Timeout (Seconds)', 1, 3600, false);
	return {
		policy: {
			...DEFAULT_RETRY_POLICY,
			...(maxAttempts === undefined ? {} : { maxAttempts }),
			...(maxWait === undefined ? {} : { maxWaitMs: Math.round(maxWait * 1000) }),
		},
		timeoutMs: timeout === undefined ? DEFAULT_TIMEOUT_MS : Math.round(timeout * 1000),
	};
}
