/**
 * Every resource and its operations: the single table the node description and
 * the router are built from.
 */
import type { INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { group } from './group';
import { groupTopic } from './groupTopic';
import { knowledgeBase } from './knowledgeBase';
import { knowledgeFile } from './knowledgeFile';
import { message } from './message';
import { messageAction } from './messageAction';
import { task } from './task';
import { topic } from './topic';
import { user } from './user';
import { simplifyProperty } from './simplify';
import type { OperationDefinition, ResourceDefinition } from './types';
import { optionsCollection } from './common.descriptions';
import {
	AUTO_REQUESTS_IN_PARALLEL,
	BATCHING,
	DEFAULT_RETRY_POLICY,
	DEFAULT_TIMEOUT_MS,
	MAX_REQUESTS_IN_PARALLEL,
	OPTIONS,
	REQUESTS_IN_PARALLEL,
	RETRY,
	RETRY_OPTIONS,
	TIMEOUT,
} from '../transport';

export const RESOURCES: ResourceDefinition[] = [knowledgeBase, knowledgeFile, task, topic, group, groupTopic, user, message, messageAction];
const defaultResource = RESOURCES[0].value;

/** The operation a node runs, with the resource it belongs to. */
export function findOperation(
	resource: string,
	operation: string,
): { resource: ResourceDefinition; operation: OperationDefinition } | undefined {
	const found = RESOURCES.find((r) => r.value === resource);
	const op = found?.operations.find((o) => o.value === operation);
	return found && op ? { resource: found, operation: op } : undefined;
}

/** The Resource selector, each resource's Operation selector, and every operation's fields. */
export function describeResources(): INodeProperties[] {
	const properties: INodeProperties[] = [
		{
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: RESOURCES.map((r) => ({ name: r.name, value: r.value, description: r.description })),
			default: defaultResource,
		},
	];
	for (const resource of RESOURCES) {
		const { defaultOperation } = resource;
		properties.push({
			displayName: 'Operation',
			name: 'operation',
			type: 'options',
			noDataExpression: true,
			displayOptions: { show: { resource: [resource.value] } },
			options: resource.operations.map((o) => ({
				name: o.name,
				value: o.value,
				action: o.action,
				description: o.description,
			})),
			default: defaultOperation,
		});
		for (const operation of resource.operations) {
			properties.push(
				...updateDisplayOptions(
					{ show: { resource: [resource.value], operation: [operation.value] } },
					withRequestOptions(operation),
				),
			);
		}
	}
	// Version 1 kept the request settings at the top level, for every resource that talks to the service.
	const sending = RESOURCES.filter((r) => r.operations.some((o) => o.request)).map((r) => r.value);
	properties.push(requestsInParallel(sending));
	properties.push(retryOptions(sending));
	return properties;
}

const V1 = { show: { '@version': [1] } };
/** Version 2's request settings in Options stay in version 3. */
const V2 = { show: { '@version': [2, 3] } };
const V3 = { show: { '@version': [3] } };

/**
 * An operation's fields with, from version 2 on, the request settings in its
 * Options collection (its own options, if any, beside them); version 1 shows
 * the operation's own Options as before. From version 3, Simplify.
 */
function withRequestOptions(operation: OperationDefinition): INodeProperties[] {
	if (!operation.request) return operation.properties;
	// Version 3: Simplify, before the Options, for operations whose answer is large.
	const simplify = operation.simplify ? [{ ...simplifyProperty, displayOptions: V3 }] : [];
	const own = operation.properties.find((p) => p.name === OPTIONS && p.type === 'collection');
	const rest = operation.properties.filter((p) => p !== own);
	const options = [...(own?.options ?? []), ...requestOptions()] as INodeProperties[];
	options.sort((a, b) => a.displayName.localeCompare(b.displayName));
	const v2: INodeProperties = {
		...(own ?? optionsCollection([])),
		description: own?.description ?? 'Optional settings: how many items are sent at once, how failed requests are retried, how long to wait for an answer',
		options,
		displayOptions: V2,
	};
	return [...rest, ...simplify, ...(own ? [{ ...own, displayOptions: V1 }] : []), v2];
}

/** Version 2's request settings, named as n8n's HTTP Request node names its Batching and Timeout options. */
function requestOptions(): INodeProperties[] {
	return [
		{
			displayName: 'Batching',
			name: BATCHING,
			placeholder: 'Add Batching',
			type: 'fixedCollection',
			typeOptions: { multipleValues: false },
			default: { batch: {} },
			description: `How many items are sent to the service at the same time; unset, reads, replaces and deletes go ${AUTO_REQUESTS_IN_PARALLEL} at a time and creates one after another`,
			options: [
				{
					displayName: 'Batching',
					name: 'batch',
					values: [
						{
							displayName: 'Requests in Parallel',
							name: REQUESTS_IN_PARALLEL,
							type: 'number',
							typeOptions: { minValue: 0, maxValue: MAX_REQUESTS_IN_PARALLEL, numberPrecision: 0 },
							default: 0,
							description: `How many items are sent to the service at the same time. 0 (the default) decides by the request: reads, replaces and deletes ${AUTO_REQUESTS_IN_PARALLEL} at a time, creates and messages one after another. Output keeps the input order; a rate limit (429) pauses them all; without Continue On Fail, the first failure stops new items, but items already sent complete.`,
						},
					],
				},
			],
		},
		{
			displayName: 'Retry',
			name: RETRY,
			placeholder: 'Add Retry',
			type: 'fixedCollection',
			typeOptions: { multipleValues: false },
			default: { retry: {} },
			description:
				'How requests are retried: reads, replaces and deletes after 429, 502, 503, 504 and broken connections; creates only when the service cannot have received them (429, connection refused)',
			options: [{ displayName: 'Retry', name: 'retry', values: retryFields() }],
		},
		{
			displayName: 'Timeout',
			name: TIMEOUT,
			type: 'number',
			typeOptions: { minValue: 1000, maxValue: 3_600_000 },
			default: DEFAULT_TIMEOUT_MS,
			description: 'Time in ms to wait for the service to answer each attempt',
		},
	];
}

function retryFields(): INodeProperties[] {
	// Plain names as defaults: n8n's verification rules read an identifier, not a member expression.
	const { maxAttempts } = DEFAULT_RETRY_POLICY;
	const maxWaitSeconds = DEFAULT_RETRY_POLICY.maxWaitMs / 1000;
	return [
		{
			displayName: 'Max Attempts',
			name: 'maxAttempts',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 10, numberPrecision: 0 },
			default: maxAttempts,
			description: 'Attempts per request in all, the first included (1 turns retries off)',
		},
		{
			displayName: 'Max Wait (Seconds)',
			name: 'maxWaitSeconds',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 3600 },
			default: maxWaitSeconds,
			description:
				'Longest wait before a retry; when the service asks to wait longer (Retry-After), the item fails with the time to retry',
		},
	];
}

function requestsInParallel(resources: string[]): INodeProperties {
	return {
		displayName: 'Requests in Parallel',
		name: REQUESTS_IN_PARALLEL,
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_REQUESTS_IN_PARALLEL, numberPrecision: 0 },
		default: 1,
		displayOptions: { show: { resource: resources, '@version': [1] } },
		description:
			'How many items are sent to the service at the same time (1 sends them one after another). Output keeps the input order. A rate limit (429) pauses them all. Without Continue On Fail, the first failure stops new items, but items already sent complete.',
	};
}

function retryOptions(resources: string[]): INodeProperties {
	const timeoutSeconds = DEFAULT_TIMEOUT_MS / 1000;
	return {
		displayName: 'Retry and Timeout',
		name: RETRY_OPTIONS,
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { resource: resources, '@version': [1] } },
		description:
			'How requests are retried: reads, replaces and deletes after 429, 502, 503, 504 and broken connections; creates only when the service cannot have received them (429, connection refused)',
		options: [
			...retryFields(),
			{
				displayName: 'Timeout (Seconds)',
				name: 'timeoutSeconds',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 3600 },
				default: timeoutSeconds,
				description: 'How long to wait for the service to answer each attempt',
			},
		],
	};
}
