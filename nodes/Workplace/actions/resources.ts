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

export const RESOURCES: ResourceDefinition[] = [knowledgeBase, knowledgeFile, task, topic, group, groupTopic, user, messageAction];

export function findOperation(resource: string, operation: string): OperationDefinition | undefined {
	return RESOURCES.find((r) => r.value === resource)?.operations.find((o) => o.value === operation);
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
			default: RESOURCES[0].value,
		},
	];
	for (const resource of RESOURCES) {
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
			default: resource.defaultOperation,
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
	return properties;
}
