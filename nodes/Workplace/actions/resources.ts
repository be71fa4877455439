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
import { optionsCollection } from '../../../shared/descriptions';
import { OPTIONS, requestOptions, requestSettingsV1 } from './requestSettings';

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
	properties.push(...requestSettingsV1(sending));
	return properties;
}

const V1 = { show: { '@version': [1] } };
/** Version 2's request settings in Options stay in version 3. */
const V2 = { show: { '@version': [2, 3] } };
/** Simplify from version 3 on. */
const V3 = { show: { '@version': [3, 4] } };
/** Version 4: the same Options, Requests in Parallel a ceiling over the service's limiter. */
const V4 = { show: { '@version': [4] } };

/**
 * An operation's fields with, from version 2 on, the request settings in its
 * Options collection (its own options, if any, beside them); version 1 shows
 * the operation's own Options as before. From version 3, Simplify; version 4's
 * Options describe Requests in Parallel as a ceiling.
 */
function withRequestOptions(operation: OperationDefinition): INodeProperties[] {
	if (!operation.request) return operation.properties;
	// Version 3: Simplify, before the Options, for operations whose answer is large.
	const simplify = operation.simplify ? [{ ...simplifyProperty, displayOptions: V3 }] : [];
	const own = operation.properties.find((p) => p.name === OPTIONS && p.type === 'collection');
	const rest = operation.properties.filter((p) => p !== own);
	const collection = (version: 2 | 4, displayOptions: INodeProperties['displayOptions']): INodeProperties => {
		const options = [...(own?.options ?? []), ...requestOptions(version)] as INodeProperties[];
		options.sort((a, b) => a.displayName.localeCompare(b.displayName));
		return {
			...(own ?? optionsCollection([])),
			description: own?.description ?? 'Optional settings: how many items are sent at once, how failed requests are retried, how long to wait for an answer',
			options,
			displayOptions,
		};
	};
	return [...rest, ...simplify, ...(own ? [{ ...own, displayOptions: V1 }] : []), collection(2, V2), collection(4, V4)];
}
