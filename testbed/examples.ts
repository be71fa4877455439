/**
 * The example workflows (examples/*.json) and the credentials they reference,
 * as `npm run dev`, `npm run demo` and the end-to-end suites load them.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import { credentialData, type CredentialType, type EmulatorAccess } from '../emulator/clientCredentials';
import { type StoredCredential } from './n8n';
import { ROOT } from './root';

export const EXAMPLES_DIR = path.join(ROOT, 'examples');

/** The id and name of the credential of every type, as the example workflows reference them. */
export const EXAMPLE_CREDENTIALS: Record<CredentialType, { id: string; name: string }> = {
	workplaceKnowledgeBaseApi: { id: 'workplace-kb', name: 'Workplace Knowledge Base (emulator)' },
	workplaceTaskProjectsApi: { id: 'workplace-tasks', name: 'Workplace Task Projects (emulator)' },
	workplaceBotApi: { id: 'workplace-bot', name: 'Workplace Bot (emulator)' },
};

/** The example credential of one type, pointing at the emulator. */
export function exampleCredential(emulator: EmulatorAccess, type: CredentialType): StoredCredential {
	return { ...EXAMPLE_CREDENTIALS[type], type, data: credentialData(emulator)[type] };
}

/** One credential of every type, with the ids and names the example workflows reference. */
export function exampleCredentials(emulator: EmulatorAccess): StoredCredential[] {
	return (Object.keys(EXAMPLE_CREDENTIALS) as CredentialType[]).map((type) => exampleCredential(emulator, type));
}

/**
 * The Bearer credential MCP clients present to the example MCP server
 * (examples/mcp-server-tools.json): a fixed development token, so that
 * `npm run dev` can print a client's settings; n8n there listens on 127.0.0.1 only.
 */
export const EXAMPLE_MCP_CREDENTIAL: StoredCredential = {
	id: 'workplace-mcp',
	name: 'MCP clients (example token)',
	type: 'httpBearerAuth',
	data: { token: 'workplace-dev-mcp-token' },
};

export interface ExampleWorkflow {
	/** File name in examples/. */
	file: string;
	/** A stable workflow id derived from the file name (16 characters, as n8n's own ids). */
	id: string;
	name: string;
	workflow: Record<string, unknown> & { id: string; name: string; nodes: Array<{ id: string; name: string; type: string; webhookId?: string }> };
}

/** Every examples/*.json, sorted by file name, each with its stable id. */
export function exampleWorkflows(): ExampleWorkflow[] {
	return readdirSync(EXAMPLES_DIR)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			const json = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as ExampleWorkflow['workflow'];
			// n8n's CLI treats ids longer than 21 characters as invalid; a hash keeps every name short.
			const id = createHash('sha256').update(`examples/${file}`).digest('hex').slice(0, 16);
			return { file, id, name: json.name, workflow: { ...json, id } };
		});
}

/** The user an example's Workplace Trigger hears from: the events the emulator plays to it, in order. */
export interface ExampleEvent {
	type: string;
	uid?: string;
	gid?: string;
	tid?: string;
	text?: string;
	data?: string;
}

/**
 * Examples started by a Workplace Trigger, and the events that start them (the
 * emulator signs and delivers each, as the service would). Examples that also
 * have a Manual Trigger run from it first (the approval loop asks, then hears).
 */
export const EXAMPLE_EVENTS: Readonly<Record<string, readonly ExampleEvent[]>> = {
	// somchai taps Approve, then nattaya taps Reject, in the incident room's main chat.
	'approval-loop.json': [
		{ type: 'postback', uid: '64b7f0a1c2d3e4f5a6b7c801', gid: '64b7f0a1c2d3e4f5a6b7d001', data: 'approve:7' },
		{ type: 'postback', uid: '64b7f0a1c2d3e4f5a6b7c803', gid: '64b7f0a1c2d3e4f5a6b7d001', data: 'reject:7' },
	],
	// anan opens a chat with the bot for the first time.
	'welcome-on-join.json': [{ type: 'join', uid: '64b7f0a1c2d3e4f5a6b7c804' }],
	// What the play page of `npm run dev` sends by default: a message, then a tap on a postback.
	'bot-answers.json': [
		{ type: 'message', uid: '64b7f0a1c2d3e4f5a6b7c801', text: 'Hello' },
		{ type: 'postback', uid: '64b7f0a1c2d3e4f5a6b7c801', data: 'Hello' },
	],
};

/**
 * Examples that wait for a person (Send and Wait), and the answers given to
 * them: each answer goes to a run of its own, as n8n's waiting webhook would
 * resume it (the answer pages themselves are driven in real n8n by
 * e2e/tests/sendAndWait.e2e.test.ts).
 */
export const EXAMPLE_ANSWERS: Readonly<Record<string, readonly Array<Record<string, unknown>>[]>> = {
	// Approve, then (in a second run) reject.
	'approval-in-one-workflow.json': [[{ data: { approved: true, respondedAt: '2026-11-25T09:00:00.000Z' } }], [{ data: { approved: false, respondedAt: '2026-11-25T09:00:00.000Z' } }]],
};

/**
 * Whether an example needs n8n's AI nodes (@n8n/n8n-nodes-langchain: the AI
 * Agent, the MCP Server Trigger), which only a real n8n has: the engine harness
 * and `npm run demo` leave it out, and the end-to-end suites run it in n8n
 * (aiAgentReview, mcp).
 */
export function needsAiNodes(workflow: { nodes: Array<{ type: string }> }): boolean {
	return workflow.nodes.some((n) => n.type.startsWith('@n8n/n8n-nodes-langchain.'));
}

/** The MCP Server Trigger of an example workflow, if it has one (its `path` is where MCP clients connect). */
export function exampleMcpTrigger(workflow: { nodes: Array<{ name: string; type: string; parameters?: Record<string, unknown> }> }) {
	return workflow.nodes.find((n) => n.type === '@n8n/n8n-nodes-langchain.mcpTrigger');
}

/** The Workplace Trigger of an example workflow, if it has one. */
export function exampleTrigger(workflow: { nodes: Array<{ name: string; type: string; webhookId?: string }> }) {
	return workflow.nodes.find((n) => n.type === 'n8n-nodes-workplace.workplaceTrigger');
}
