/**
 * The node's request settings (parallelism, retry, timeout), each written once:
 * its field, default and limits, where each node version stores it, and how a
 * run's value is read and checked. The node's parameter descriptions
 * (resources.ts) and the values the router hands the transport both come from
 * here; the transport never reads a parameter.
 *
 * Version 2 keeps them in each operation's Options collection, named as n8n's
 * HTTP Request node names its own: Batching → Requests in Parallel, Retry, and
 * Timeout (ms). Version 1 workflows store `requestsInParallel` and a "Retry and
 * Timeout" collection (`retryOptions`) at the top level; they are still read,
 * with version 1's meaning (one item at a time unless set). Version 4 stores
 * them where version 2 does, and reads Requests in Parallel as a ceiling: under
 * it, the service's limiter decides how many go at once.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, safeToRepeat, type RequestSettings, type RetryRequest } from '../../../shared/transport';
import { hasExpression } from '../../../shared/hasExpression';
import { invalid } from '../../../shared/invalid';
import { numberValue } from '../../../shared/numberValue';

export const MAX_REQUESTS_IN_PARALLEL = 100;

/**
 * Requests in Parallel when the node leaves it to the request (version 2,
 * Batching not set): requests safe to repeat (GET, PUT, DELETE) this many at a
 * time; POSTs, which create or send something, one at a time. Measured with the
 * benchmark over a 20 ms TLS link, where every request opens its own
 * connection (docs/performance.md, part e): n8n's HTTP Request node sends all
 * items at once; 16 in parallel took 1.9–2.4× its time, 32 took 1.2–1.5×. On
 * loopback (CPU-bound) 16, 32 and 64 cost the same.
 */
export const AUTO_REQUESTS_IN_PARALLEL = 32;

/** A number setting: its parameter name, what the editor (and an error about it) calls it, its default and limits. */
interface NumberSetting {
	name: string;
	displayName: string;
	description: string;
	default: number;
	min: number;
	max: number;
	/** Whole numbers only. */
	whole: boolean;
}

const RETRY_DESCRIPTION =
	'How requests are retried: reads, replaces and deletes after 429, 502, 503, 504 and broken connections; creates only when the service cannot have received them (429, connection refused)';

const MAX_ATTEMPTS: NumberSetting = {
	name: 'maxAttempts',
	displayName: 'Max Attempts',
	description: 'Attempts per request in all, the first included (1 turns retries off)',
	default: DEFAULT_RETRY_POLICY.maxAttempts,
	min: 1,
	max: 10,
	whole: true,
};

const MAX_WAIT_SECONDS: NumberSetting = {
	name: 'maxWaitSeconds',
	displayName: 'Max Wait (Seconds)',
	description: 'Longest wait before a request goes (again); when the service asks to wait longer (Retry-After, to this item or another with the credential), the item fails with the time to retry',
	default: DEFAULT_RETRY_POLICY.maxWaitMs / 1000,
	min: 0,
	max: 3600,
	whole: false,
};

/** Version 2: Options → Timeout, in milliseconds. */
const TIMEOUT_MS: NumberSetting = {
	name: 'timeout',
	displayName: 'Timeout',
	description: 'Time in ms to wait for the service to answer each attempt',
	default: DEFAULT_TIMEOUT_MS,
	min: 1000,
	max: 3_600_000,
	whole: false,
};

/** Version 1: Retry and Timeout → Timeout (Seconds). */
const TIMEOUT_SECONDS: NumberSetting = {
	name: 'timeoutSeconds',
	displayName: 'Timeout (Seconds)',
	description: 'How long to wait for the service to answer each attempt',
	default: DEFAULT_TIMEOUT_MS / 1000,
	min: 1,
	max: 3600,
	whole: false,
};

/** Version 2: Options → Batching → Requests in Parallel; 0 leaves it to the request. */
const REQUESTS_IN_PARALLEL: NumberSetting = {
	name: 'requestsInParallel',
	displayName: 'Requests in Parallel',
	description: `How many items are sent to the service at the same time. 0 (the default) decides by the request: reads, replaces and deletes ${AUTO_REQUESTS_IN_PARALLEL} at a time, creates and messages one after another. Output keeps the input order; a rate limit (429) pauses them all; without Continue On Fail, the first failure stops new items, but items already sent complete.`,
	default: 0,
	min: 0,
	max: MAX_REQUESTS_IN_PARALLEL,
	whole: true,
};

/** Version 4: Options → Batching → Requests in Parallel, a ceiling; 0 leaves it to the service's limiter. */
const REQUESTS_IN_PARALLEL_V4: NumberSetting = {
	...REQUESTS_IN_PARALLEL,
	description: `The most items sent to the service at the same time. 0 (the default) adapts to the service: reads, replaces and deletes start a few at a time and go up to ${MAX_REQUESTS_IN_PARALLEL} while it answers promptly, and fewer when it refuses (429) or slows down; creates and messages go one after another unless set here, and then adapt the same way. Output keeps the input order; a rate limit (429) pauses every request to the service; without Continue On Fail, the first failure stops new items, but items already sent complete.`,
};

/** Version 1: the top-level Requests in Parallel; 1 sends one item after another. */
const REQUESTS_IN_PARALLEL_V1: NumberSetting = {
	...REQUESTS_IN_PARALLEL,
	description:
		'How many items are sent to the service at the same time (1 sends them one after another). Output keeps the input order. A rate limit (429) pauses them all. Without Continue On Fail, the first failure stops new items, but items already sent complete.',
	default: 1,
	min: 1,
};

/** Where each version stores the settings: the top-level parameter, and the keys of each setting inside it. */
const STORED = {
	1: {
		retryAndTimeout: 'retryOptions',
		maxAttempts: ['maxAttempts'],
		maxWaitSeconds: ['maxWaitSeconds'],
		timeout: { setting: TIMEOUT_SECONDS, path: ['timeoutSeconds'], toMs: 1000 },
		parallel: { parameter: 'requestsInParallel', fallback: 1, path: [] as string[], setting: REQUESTS_IN_PARALLEL_V1 },
	},
	2: {
		retryAndTimeout: 'options',
		maxAttempts: ['retry', 'retry', 'maxAttempts'],
		maxWaitSeconds: ['retry', 'retry', 'maxWaitSeconds'],
		timeout: { setting: TIMEOUT_MS, path: ['timeout'], toMs: 1 },
		parallel: { parameter: 'options', fallback: {}, path: ['batching', 'batch', 'requestsInParallel'], setting: REQUESTS_IN_PARALLEL },
	},
} as const;

/** The name of the Options collection (version 2), where an operation's own options sit beside the request settings. */
export const OPTIONS = STORED[2].retryAndTimeout;

/** The parameter description of a number setting. */
function numberProperty(setting: NumberSetting): INodeProperties {
	// A plain name as the default: n8n's verification rules read an identifier, not a member expression.
	const initial = setting.default;
	return {
		displayName: setting.displayName,
		name: setting.name,
		type: 'number',
		typeOptions: { minValue: setting.min, maxValue: setting.max, ...(setting.whole ? { numberPrecision: 0 } : {}) },
		default: initial,
		description: setting.description,
	};
}

/** A fixed collection holding one group of values, `{ [name]: { [group]: values } }`, as n8n's HTTP Request node's Batching. */
function fixedCollection(name: string, group: string, displayName: string, description: string, values: INodeProperties[]): INodeProperties {
	return {
		displayName,
		name,
		placeholder: `Add ${displayName}`,
		type: 'fixedCollection',
		typeOptions: { multipleValues: false },
		default: { [group]: {} },
		description,
		options: [{ displayName, name: group, values }],
	};
}

/** The request settings of each operation's Options collection: version 2 (and 3), or version 4's, whose Requests in Parallel is a ceiling. */
export function requestOptions(version: 2 | 4): INodeProperties[] {
	const batching =
		version === 4
			? fixedCollection(
					'batching',
					'batch',
					'Batching',
					`The most items sent to the service at the same time; unset, reads, replaces and deletes adapt to the service (up to ${MAX_REQUESTS_IN_PARALLEL} at a time) and creates go one after another`,
					[numberProperty(REQUESTS_IN_PARALLEL_V4)],
				)
			: fixedCollection(
					'batching',
					'batch',
					'Batching',
					`How many items are sent to the service at the same time; unset, reads, replaces and deletes go ${AUTO_REQUESTS_IN_PARALLEL} at a time and creates one after another`,
					[numberProperty(REQUESTS_IN_PARALLEL)],
				);
	return [
		batching,
		fixedCollection('retry', 'retry', 'Retry', RETRY_DESCRIPTION, [numberProperty(MAX_ATTEMPTS), numberProperty(MAX_WAIT_SECONDS)]),
		numberProperty(TIMEOUT_MS),
	];
}

/** Version 1's top-level request settings, shown for the resources that talk to the service. */
export function requestSettingsV1(resources: string[]): INodeProperties[] {
	const show = { show: { resource: resources, '@version': [1] } };
	return [
		{ ...numberProperty(REQUESTS_IN_PARALLEL_V1), displayOptions: show },
		{
			displayName: 'Retry and Timeout',
			name: STORED[1].retryAndTimeout,
			type: 'collection',
			placeholder: 'Add option',
			default: {},
			displayOptions: show,
			description: RETRY_DESCRIPTION,
			options: [numberProperty(MAX_ATTEMPTS), numberProperty(MAX_WAIT_SECONDS), numberProperty(TIMEOUT_SECONDS)],
		},
	];
}

type Context = Pick<IExecuteFunctions, 'getNode' | 'getNodeParameter'>;

function stored(ctx: Context): (typeof STORED)[1 | 2] {
	return STORED[ctx.getNode().typeVersion >= 2 ? 2 : 1];
}

/** The value at `path` inside a stored collection, or undefined. */
function valueAt(value: unknown, path: readonly string[]): unknown {
	let current = value;
	for (const key of path) {
		if (!current || typeof current !== 'object' || Array.isArray(current)) return undefined;
		current = (current as IDataObject)[key];
	}
	return current;
}

/** A number setting's value: undefined when unset, else a number checked against its limits (NodeOperationError naming the field). */
function checkedNumber(ctx: Context, itemIndex: number, value: unknown, setting: NumberSetting): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const n = numberValue(value);
	if (typeof n !== 'number' || !Number.isFinite(n) || (setting.whole && !Number.isInteger(n))) {
		throw invalid(ctx, itemIndex, setting.displayName, `expected ${setting.whole ? 'a whole number' : 'a number'}, got ${JSON.stringify(value)}`);
	}
	if (n < setting.min || n > setting.max) throw invalid(ctx, itemIndex, setting.displayName, `must be between ${setting.min} and ${setting.max} (got ${n})`);
	return n;
}

function readSettings(ctx: Context, itemIndex: number): RequestSettings {
	const where = stored(ctx);
	const collection = ctx.getNodeParameter(where.retryAndTimeout, itemIndex, {}) ?? {};
	const maxAttempts = checkedNumber(ctx, itemIndex, valueAt(collection, where.maxAttempts), MAX_ATTEMPTS);
	const maxWaitSeconds = checkedNumber(ctx, itemIndex, valueAt(collection, where.maxWaitSeconds), MAX_WAIT_SECONDS);
	const timeout = checkedNumber(ctx, itemIndex, valueAt(collection, where.timeout.path), where.timeout.setting);
	return {
		policy: {
			...DEFAULT_RETRY_POLICY,
			...(maxAttempts === undefined ? {} : { maxAttempts }),
			...(maxWaitSeconds === undefined ? {} : { maxWaitMs: Math.round(maxWaitSeconds * 1000) }),
		},
		timeoutMs: timeout === undefined ? DEFAULT_TIMEOUT_MS : Math.round(timeout * where.timeout.toMs),
		adaptive: ctx.getNode().typeVersion >= 4,
	};
}

/** Settings of runs whose settings hold no expression: the same for every item, read once. */
const perRun = new WeakMap<object, RequestSettings>();

/**
 * The retry policy and timeout item i asked for, checked locally; the defaults
 * where it asked for nothing. Read once per run unless an expression makes them
 * differ per item.
 */
export function requestSettingsOf(ctx: Context, itemIndex: number): RequestSettings {
	const cached = perRun.get(ctx);
	if (cached) return cached;
	const settings = readSettings(ctx, itemIndex);
	if (!hasExpression(ctx.getNode().parameters[stored(ctx).retryAndTimeout])) perRun.set(ctx, settings);
	return settings;
}

/** What apiRequest needs to send item i's requests: the item and its settings. */
export function sendingItem(ctx: Context, itemIndex: number): { itemIndex: number; settings: RequestSettings } {
	return { itemIndex, settings: requestSettingsOf(ctx, itemIndex) };
}

/** How a run sends its items, from Requests in Parallel as the run asked for it. */
export type Parallelism =
	/** At most this many at a time: version 1 (1 unless set), or versions 2 and 3 when set. */
	| { fixed: number }
	/** Versions 2 and 3 unset: by the request (AUTO_REQUESTS_IN_PARALLEL for requests safe to repeat, else 1). */
	| { byRequest: true }
	/** Version 4: as many as the service's limiter allows, never more than the ceiling when one is set. */
	| { adaptive: true; ceiling?: number };

/** Requests in Parallel as the run asked for it, read once with item 0 and checked before anything is sent. */
export function parallelismOf(ctx: Context): Parallelism {
	const { parameter, fallback, path, setting } = stored(ctx).parallel;
	const version = ctx.getNode().typeVersion;
	const read = checkedNumber(ctx, 0, valueAt(ctx.getNodeParameter(parameter, 0, fallback), path), version >= 4 ? REQUESTS_IN_PARALLEL_V4 : setting);
	const n = read === 0 ? undefined : read;
	if (version >= 4) return n === undefined ? { adaptive: true } : { adaptive: true, ceiling: n };
	if (version >= 2) return n === undefined ? { byRequest: true } : { fixed: n };
	return { fixed: n ?? 1 };
}

/** How many items run at once, and whether each waits for its turn from the service's limiter. */
export interface ItemsAtOnce {
	width: number;
	limited: boolean;
}

/**
 * How many items a run sends at once, decided by its parallelism and the first
 * request it builds: requests safe to repeat (GET, PUT, DELETE) several at a
 * time, POSTs (creates, messages) one at a time unless the run asks for more;
 * version 4 under the service's limiter, up to its ceiling (MAX_REQUESTS_IN_PARALLEL when unset).
 */
export function itemsAtOnce(parallelism: Parallelism, request: RetryRequest): ItemsAtOnce {
	if ('fixed' in parallelism) return { width: parallelism.fixed, limited: false };
	const safe = safeToRepeat(request);
	if ('byRequest' in parallelism) return { width: safe ? AUTO_REQUESTS_IN_PARALLEL : 1, limited: false };
	return { width: parallelism.ceiling ?? (safe ? MAX_REQUESTS_IN_PARALLEL : 1), limited: true };
}
