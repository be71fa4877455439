/**
 * Nodes the end-to-end suites' hand-built workflows share (with
 * testbed/chainWorkflow.ts, which lays a chain of them out): the Workplace
 * Trigger on the example bot credential, a Workplace node of one operation,
 * the node as an AI tool, n8n's Webhook start and No Op.
 */
import { randomUUID } from 'node:crypto';

import { EXAMPLE_CREDENTIALS } from '../../testbed/examples';
import type { ChainNode } from '../../testbed/chainWorkflow';

/** The example credentials, by type, as a node's `credentials` names one. */
export const BOT = { workplaceBotApi: EXAMPLE_CREDENTIALS.workplaceBotApi };
export const TASKS = { workplaceTaskProjectsApi: EXAMPLE_CREDENTIALS.workplaceTaskProjectsApi };
export const KNOWLEDGE = { workplaceKnowledgeBaseApi: EXAMPLE_CREDENTIALS.workplaceKnowledgeBaseApi };

/**
 * The Workplace Trigger (version 2) on the example bot credential, whose client
 * secret verifies X-Eko-Signature; `events` as the panel stores them (none: every event).
 * Its production URL is <n8n>/webhook/<webhookId>/webhook.
 */
export function workplaceTrigger(events?: string[], webhookId: string = randomUUID()): ChainNode & { webhookId: string } {
	return {
		name: 'Workplace Trigger',
		type: 'n8n-nodes-workplace.workplaceTrigger',
		typeVersion: 2,
		parameters: events ? { events } : {},
		webhookId,
		credentials: BOT,
	};
}

/** A Workplace node running one operation with one credential. */
export function workplaceNode(name: string, credentials: Record<string, unknown>, parameters: Record<string, unknown>, typeVersion = 1): ChainNode {
	return { name, type: 'n8n-nodes-workplace.workplace', typeVersion, parameters, credentials };
}

/**
 * The Workplace node as a tool of an AI Agent or an MCP Server Trigger (n8n
 * builds `workplaceTool` from the node, usableAsTool): connect it to the
 * consumer's ai_tool input; parameters the model or client fills read `$fromAI()`.
 */
export function workplaceTool(name: string, credentials: Record<string, unknown>, toolDescription: string, parameters: Record<string, unknown>): ChainNode {
	return { ...workplaceNode(name, credentials, { descriptionType: 'manual', toolDescription, ...parameters }), type: 'n8n-nodes-workplace.workplaceTool' };
}

/** n8n's Webhook node, named Start: POST <n8n>/webhook/<path> starts one execution (answered at once). */
export function webhookStart(path: string): ChainNode & { webhookId: string } {
	return {
		name: 'Start',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
		webhookId: randomUUID(),
	};
}

/** n8n's No Op, the end of a chain whose input a test reads. */
export const noOp = (name: string): ChainNode => ({ name, type: 'n8n-nodes-base.noOp', typeVersion: 1 });
