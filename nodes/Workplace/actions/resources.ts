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
import { messageAction } from './messageAction';
import { task } from './task';
import { topic } from './topic';
import { user } from './user';
import type { OperationDefinition, ResourceDefinition } from './types';
import {
	DEFAULT_RETRY_POLICY,
	DEFAULT_TIMEOUT_MS,
	MAX_REQUESTS_IN_PARALLEL,
	REQUESTS_IN_PARALLEL,
	RETRY_OPTIONS,
} from '../transport';

export const RESOURCES: ResourceDefinition[] = [knowledgeBase, knowledgeFile, task, topic, group, groupTopic, user, messageAction];
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
					operation.properties,
				),
			);
		}
	}
	// One "Retry and Timeout" collection for every resource that talks to the service; the transport reads it.
	const sending = RESOURCES.filter((r) => r.operations.some((o) => o.request)).map((r) => r.value);
	properties.push(requestsInParallel(sending));
	properties.push(retryOptions(sending));
	return properties;
}

function requestsInParallel(resources: string[]): INodeProperties {
	return {
		displayName: 'Requests in Parallel',
		name: REQUESTS_IN_PARALLEL,
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_REQUESTS_IN_PARALLEL, numberPrecision: 0 },
		default: 1,
		displayOptions: { show: { resource: resources } },
		description:
			'How many items are sent to the service at the same time (1 sends them one after another). Output keeps the input order. A rate limit (429) pauses them all. Without Continue On Fail, the first failure stops new items, but items already sent complete.',
	};
}

function retryOptions(resources: string[]): INodeProperties {
	const { maxAttempts } = DEFAULT_RETRY_POLICY;
	const maxWaitSeconds = DEFAULT_RETRY_POLICY.maxWaitMs / 1000;
	const timeoutSeconds = DEFAULT_TIMEOUT_MS / 1000;
	return {
		displayName: 'Retry and Timeout',
		name: RETRY_OPTIONS,
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { resource: resources } },
		description:
			'How requests are retried: reads, replaces and deletes after 429, 502, 503, 504 and broken connections; creates only when the service cannot have received them (429, connection refused)',
		options: [
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
