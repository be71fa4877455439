/**
 * Parameters that hold no expression are the same for every item, yet n8n
 * resolves each getNodeParameter call anew (expression machinery, resource
 * locator extraction, type checks). The router hands operations a context that
 * reads each such value once per run and gives every later item its own copy;
 * parameters with an expression are read per item as before. Failed reads are
 * not kept, so every item still gets its own error.
 */
import type { IExecuteFunctions, IGetNodeParameterOptions, INodeParameters, NodeParameterValueType } from 'n8n-workflow';

import { hasExpression } from '../../../shared/hasExpression';

/** The stored (unresolved) value at a dotted path such as "options.fileName". */
function stored(parameters: INodeParameters, path: string): unknown {
	let value: unknown = parameters;
	for (const key of path.split('.')) {
		if (!value || typeof value !== 'object') return undefined;
		value = (value as Record<string, unknown>)[key];
	}
	return value;
}

function copy<T>(value: T): T {
	return value !== null && typeof value === 'object' ? structuredClone(value) : value;
}

/** `ctx` with getNodeParameter reading expression-free parameters once per run. */
export function readingConstantsOnce(ctx: IExecuteFunctions): IExecuteFunctions {
	const parameters = ctx.getNode().parameters;
	const kept = new Map<string, unknown>();
	const varies = new Map<string, boolean>();
	const perRun = Object.create(ctx) as IExecuteFunctions;
	const get = ctx.getNodeParameter as (n: string, i: number, f?: unknown, o?: IGetNodeParameterOptions) => unknown;
	const read = (name: string, itemIndex: number, fallback?: unknown, options?: IGetNodeParameterOptions): unknown => {
		let perItem = varies.get(name);
		if (perItem === undefined) varies.set(name, (perItem = hasExpression(stored(parameters, name))));
		if (perItem || options?.rawExpressions) return get(name, itemIndex, fallback, options);
		const key = `${name}\u0000${JSON.stringify(options ?? null)}\u0000${JSON.stringify(fallback ?? null)}`;
		if (!kept.has(key)) kept.set(key, get(name, itemIndex, fallback, options));
		return copy(kept.get(key) as NodeParameterValueType);
	};
	perRun.getNodeParameter = read as IExecuteFunctions['getNodeParameter'];
	return perRun;
}
