/**
 * The Send and Wait workflows of the end-to-end suites that prove every
 * answer is bound to its question (sendAndWaitAnswers, sendAndWaitQueue): a
 * question asked again in one execution, as in a loop, by link or in the chat,
 * and how a suite reads what became of it.
 */
import { randomUUID } from 'node:crypto';

import { SEED_GROUP_IDS } from '../../emulator/bot/seed';
import type { MessageRecord } from '../../emulator/bot/state';
import type { Emulator } from '../../emulator/server';
import { EXAMPLE_CREDENTIALS } from '../../testbed/examples';
import { byId } from '../../testbed/locator';
import { N8nRest, until } from '../../testbed/n8n';

const BOT = { workplaceBotApi: EXAMPLE_CREDENTIALS.workplaceBotApi };
export const ROOM = SEED_GROUP_IDS.incidentRoom;

type Node = { id: string; name: string; type: string; typeVersion: number; position: [number, number]; parameters: Record<string, unknown>; [key: string]: unknown };

/**
 * POST /webhook/<path> → Ask (Send and Wait, Approve or Decline) → Approved?:
 * an approval goes round through Again and asks once more (the same node, a
 * new question, one execution); a decline ends at Done. `ask` adds Send and
 * Wait parameters (Answer in Chat, a limit).
 */
export function loopWorkflow(id: string, path: string, ask: Record<string, unknown> = {}) {
	const node = (n: number, name: string, type: string, typeVersion: number, parameters: Record<string, unknown>, extra: Record<string, unknown> = {}): Node => ({
		id: `${id.toLowerCase().padEnd(8, '0').slice(0, 8)}-0000-4c55-9e0e-1d2a4b9f00${String(n).padStart(2, '0')}`,
		name,
		type,
		typeVersion,
		position: [n * 220, 0],
		parameters,
		...extra,
	});
	const nodes = [
		node(1, 'Start', 'n8n-nodes-base.webhook', 2, { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} }, { webhookId: randomUUID() }),
		node(
			2,
			'Ask',
			'n8n-nodes-workplace.workplace',
			2,
			{
				resource: 'message',
				operation: 'sendAndWait',
				sendTo: 'group',
				groupId: byId(ROOM),
				topicId: byId(''),
				message: `=${path}: {{ $json.body ? $json.body.question : 'once more' }}`,
				responseType: 'approval',
				approvalOptions: { values: { approvalType: 'double' } },
				...ask,
			},
			{ credentials: BOT },
		),
		node(3, 'Approved?', 'n8n-nodes-base.if', 2, {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'strict' },
				conditions: [{ id: 'approved', leftValue: '={{ $json.data ? $json.data.approved : false }}', rightValue: true, operator: { type: 'boolean', operation: 'true', singleValue: true } }],
				combinator: 'and',
			},
			options: {},
		}),
		node(4, 'Again', 'n8n-nodes-base.noOp', 1, {}),
		node(5, 'Done', 'n8n-nodes-base.noOp', 1, {}),
	];
	return {
		id,
		name: `Send and Wait loop: ${path}`,
		// n8n 1.x's import needs the field; publishing is a CLI step.
		active: false,
		nodes,
		connections: {
			Start: { main: [[{ node: 'Ask', type: 'main', index: 0 }]] },
			Ask: { main: [[{ node: 'Approved?', type: 'main', index: 0 }]] },
			'Approved?': { main: [[{ node: 'Again', type: 'main', index: 0 }], [{ node: 'Done', type: 'main', index: 0 }]] },
			Again: { main: [[{ node: 'Ask', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

export type LoopWorkflow = ReturnType<typeof loopWorkflow>;

/** Starts one execution of a loop workflow; resolves with its id once it waits. */
export async function startLoop(n8nUrl: string, rest: N8nRest, workflow: LoopWorkflow, question: string): Promise<string> {
	const before = new Set((await rest.executions(workflow.id)).map((e) => e.id));
	const path = workflow.nodes[0].parameters.path as string;
	const started = await fetch(`${n8nUrl}/webhook/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question }) });
	if (started.status !== 200) throw new Error(`POST /webhook/${path} → ${started.status}`);
	const execution = await until(`a waiting execution of ${workflow.id}`, async () => (await rest.executions(workflow.id)).find((e) => e.status === 'waiting' && !before.has(e.id)), 180_000);
	return String(execution.id);
}

/** The questions the bot posted to the room for one execution, oldest first. */
export function questionsOf(emulator: Emulator, executionId: string): MessageRecord[] {
	return emulator.messages({ gid: ROOM, route: '/bot/v2/message/push' }).filter((record) => JSON.stringify(record.messages).includes(`/webhook-waiting/${executionId}/`));
}

/** Waits until the execution has asked `count` questions; resolves with them. */
export async function asked(emulator: Emulator, executionId: string, count: number): Promise<MessageRecord[]> {
	return await until(`question ${count} of execution ${executionId}`, async () => {
		const found = questionsOf(emulator, executionId);
		return found.length >= count ? found : undefined;
	}, 180_000);
}

type Action = { type: string; label: string; linkUri?: string; data?: string };

/** A question's buttons, by label. */
export function buttonsOf(record: MessageRecord): Record<string, Action> {
	const { template } = record.messages?.at(-1) as { template: { actions: Action[] } };
	return Object.fromEntries(template.actions.map((a) => [a.label, a]));
}

/** An execution once it has ended (saved), or its state after `timeoutMs` with `allowWaiting`. */
export async function ended(rest: N8nRest, id: string, timeoutMs = 180_000) {
	return await until(`execution ${id} to end`, async () => {
		const execution = await rest.execution(id);
		if (['new', 'running', 'waiting'].includes(execution.status)) return undefined;
		if (execution.status === 'success' && !execution.data.resultData.runData.Done) return undefined;
		return execution;
	}, timeoutMs);
}

/** How many times a node ran in an execution. */
export async function runsOf(rest: N8nRest, id: string, node: string): Promise<number> {
	return (await rest.execution(id)).data.resultData.runData[node]?.length ?? 0;
}

/**
 * A REST session on the n8n at `url`, creating the owner first on a new user
 * folder; after a restart, a login. n8n 1.x answers readiness before its REST
 * routes are mounted, so a 404 is waited out.
 */
export async function restSession(url: string, setup: boolean): Promise<N8nRest> {
	const session = new N8nRest(url);
	await until('n8n\'s REST API', async () => {
		try {
			if (setup) await session.setupOwner();
			await session.login();
			return true;
		} catch (error) {
			if (/→ 404/.test(String(error))) return undefined;
			throw error;
		}
	}, 120_000);
	return session;
}
