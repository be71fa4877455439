/**
 * What the Workplace Knowledge Trigger's end-to-end suites share: a workflow
 * of the trigger (every minute) and a No Op, the change items an execution
 * started with, and the emulator's admin route for knowledge changes.
 */
import { randomUUID } from 'node:crypto';

import { EXAMPLE_CREDENTIALS } from '../../testbed/examples';
import type { ExecuteResult } from '../../testbed/n8n';

export const TRIGGER = 'Workplace Knowledge Trigger';
export const ALL_EVENTS = ['fileAdded', 'fileReplaced', 'fileRemoved', 'fileStatusChanged', 'knowledgeBaseAdded', 'knowledgeBaseRemoved'];

/** Trigger (polling every minute, n8n's shortest interval) → No Op. */
export function knowledgeTriggerWorkflow(id: string, parameters: Record<string, unknown> = { watch: 'all', events: ALL_EVENTS }) {
	return {
		id,
		name: 'Knowledge changes (polling)',
		// n8n 1.x's import needs the flag (its column is NOT NULL).
		active: false,
		nodes: [
			{
				parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, ...parameters, options: {} },
				id: randomUUID(),
				name: TRIGGER,
				type: 'n8n-nodes-workplace.workplaceKnowledgeTrigger',
				typeVersion: 1,
				position: [0, 0],
				credentials: { workplaceKnowledgeBaseApi: EXAMPLE_CREDENTIALS.workplaceKnowledgeBaseApi },
			},
			{ parameters: {}, id: randomUUID(), name: 'Each change', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [220, 0] },
		],
		connections: { [TRIGGER]: { main: [[{ node: 'Each change', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

/** The change items an execution started with: [event, file id (base id for base events)]. */
export function changesOf(result: ExecuteResult): Array<[string, number]> {
	const items = result.data.resultData.runData[TRIGGER]?.[0]?.data?.main[0] ?? [];
	return items.map(({ json }) => [String(json.event), Number(String(json.event).startsWith('knowledgeBase') ? json.knowledgeId : json.id)]);
}

/** The emulator's /__emulator/knowledge route: changes made as another user of the service would. */
export async function knowledgeAdmin(emulatorUrl: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
	const response = await fetch(`${emulatorUrl}/__emulator/knowledge${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`admin ${method} ${path}: ${response.status} ${text}`);
	return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}
