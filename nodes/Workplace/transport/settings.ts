/**
 * The node's request settings (parallelism, retry, timeout): their names,
 * defaults and limits, and the values a run asked for, checked locally.
 *
 * Version 2 keeps them in each operation's Options collection, named as n8n's
 * HTTP Request node names its own: Batching → Requests in Parallel, Retry, and
 * Timeout (ms). Version 1 workflows store `requestsInParallel` and a "Retry and
 * Timeout" collection (`retryOptions`) at the top level; they are still read,
 * with version 1's meaning (one item at a time unless set).
 */
import type { IDataObject } from 'n8n-workflow';

import { hasExpression } from '../shared/hasExpression';
import { invalid } from '../shared/invalid';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry';
import type { Context } from './types';
import { numberValue } from '../shared/numberValue';

export const DEFAULT_TIMEOUT_MS = 60_000;

/** Version 1's top-level "Retry and Timeout" collection and "Requests in Parallel" number. */
export const RETRY_OPTIONS = 'retryOptions';
export const REQUESTS_IN_PARALLEL = 'requestsInParallel';

/** Version 2: the operation's Options collection and the settings in it. */
export const OPTIONS = 'options';
export const BATCHING = 'batching';
export const RETRY = 'retry';
export const TIMEOUT = 'timeout';

export const MAX_REQUESTS_IN_PARALLEL = 100;

/**
 * Requests in Parallel when the node leaves it to the request (version 2,
 * Batching not set): requests safe to repeat (GET, PUT, DELETE) this many at a
 * time; POSTs, which create or send something, one at a time. Chosen from
 * bench part e (docs/performance.md): over a 20 ms TLS link, where every
 * request opens its own connection, n8n's HTTP Request node sends all items at
 * once; 16 in parallel took 1.9–2.4× its time, 32 took 1.2–1.5×. On loopback
 * (CPU-bound) 16, 32 and 64 cost the same.
 */
export const AUTO_REQUESTS_IN_PARALLEL = 32;

export interface RequestSettings {
	policy: RetryPolicy;
	timeoutMs: number;
}

const DEFAULTS: RequestSettings = { policy: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS };

function version(ctx: Context): number {
	return ctx.getNode().typeVersion >= 2 ? 2 : 1;
}

/** Reads a number setting: undefined when unset, else a checked number (NodeOperationError naming `field`). */
function numberSetting(ctx: Context, itemIndex: number, value: unknown, field: string, min: number, max: number, whole: boolean): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const n = numberValue(value);
	if (typeof n !== 'number' || !Number.isFinite(n) || (whole && !Number.isInteger(n))) {
		throw invalid(ctx, itemIndex, field, `expected ${whole ? 'a whole number' : 'a number'}, got ${JSON.stringify(value)}`);
	}
	if (n < min || n > max) throw invalid(ctx, itemIndex, field, `must be between ${min} and ${max} (got ${n})`);
	return n;
}

/** The value inside a single-entry fixed collection (`{ retry: { … } }`), or {}. */
function fixed(value: unknown, key: string): IDataObject {
	const inner = value && typeof value === 'object' ? (value as IDataObject)[key] : undefined;
	return inner && typeof inner === 'object' && !Array.isArray(inner) ? (inner as IDataObject) : {};
}

function readSettings(ctx: Context, itemIndex: number): RequestSettings {
	let maxAttempts: number | undefined;
	let maxWaitSeconds: number | undefined;
	let timeoutMs: number | undefined;
	if (version(ctx) === 1) {
		const raw = ctx.getNodeParameter(RETRY_OPTIONS, itemIndex, {}) as IDataObject;
		maxAttempts = numberSetting(ctx, itemIndex, raw?.maxAttempts, 'Max Attempts', 1, 10, true);
		maxWaitSeconds = numberSetting(ctx, itemIndex, raw?.maxWaitSeconds, 'Max Wait (Seconds)', 0, 3600, false);
		const seconds = numberSetting(ctx, itemIndex, raw?.timeoutSeconds, 'Timeout (Seconds)', 1, 3600, false);
		timeoutMs = seconds === undefined ? undefined : Math.round(seconds * 1000);
	} else {
		const options = (ctx.getNodeParameter(OPTIONS, itemIndex, {}) ?? {}) as IDataObject;
		const retry = fixed(options[RETRY], 'retry');
		maxAttempts = numberSetting(ctx, itemIndex, retry.maxAttempts, 'Max Attempts', 1, 10, true);
		maxWaitSeconds = numberSetting(ctx, itemIndex, retry.maxWaitSeconds, 'Max Wait (Seconds)', 0, 3600, false);
		timeoutMs = numberSetting(ctx, itemIndex, options[TIMEOUT], 'Timeout', 1000, 3_600_000, false);
	}
	return {
		policy: {
			...DEFAULT_RETRY_POLICY,
			...(maxAttempts === undefined ? {} : { maxAttempts }),
			...(maxWaitSeconds === undefined ? {} : { maxWaitMs: Math.round(maxWaitSeconds * 1000) }),
		},
		timeoutMs: timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : Math.round(timeoutMs),
	};
}

/** Settings of runs whose settings hold no expression: the same for every item, read once. */
const perRun = new WeakMap<object, RequestSettings>();

/**
 * The retry policy and timeout item i asked for, checked locally; the defaults
 * where it asked for nothing. Read once per run unless an expression makes them
 * differ per item. Load-options calls (no items) use the defaults.
 */
export function requestSettings(ctx: Context, itemIndex: number | undefined): RequestSettings {
	const cached = perRun.get(ctx);
	if (cached) return cached;
	if (itemIndex === undefined || !('getInputData' in ctx)) return DEFAULTS;
	const stored = ctx.getNode().parameters[version(ctx) === 1 ? RETRY_OPTIONS : OPTIONS];
	const settings = readSettings(ctx, itemIndex);
	if (!hasExpression(stored)) perRun.set(ctx, settings);
	return settings;
}

/**
 * Requests in Parallel as the run asked for it (read once, with item 0), or
 * undefined when version 2 leaves it to the request (AUTO_REQUESTS_IN_PARALLEL
 * for requests safe to repeat, 1 for the others). Version 1: 1 unless set.
 */
export function requestsInParallelSetting(ctx: Context): number | undefined {
	const field = 'Requests in Parallel';
	if (version(ctx) === 1) {
		return numberSetting(ctx, 0, ctx.getNodeParameter(REQUESTS_IN_PARALLEL, 0, 1), field, 1, MAX_REQUESTS_IN_PARALLEL, true) ?? 1;
	}
	const options = (ctx.getNodeParameter(OPTIONS, 0, {}) ?? {}) as IDataObject;
	const value = fixed(options[BATCHING], 'batch').requestsInParallel;
	const n = numberSetting(ctx, 0, value, field, 0, MAX_REQUESTS_IN_PARALLEL, true);
	return n === 0 ? undefined : n;
}
