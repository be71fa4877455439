/**
 * The question a waiting node asked: its id and the moment its wait ends, both
 * decided once, when it is sent, and recorded with the waiting execution in the
 * execution's custom data (`$execution.customData`), which n8n stores with the
 * execution's data: it outlives a restart, and any n8n process that loads the
 * execution (a webhook process, a worker in queue mode) reads the same record.
 * An answer counts only for the question recorded now and before its end: a
 * link of an earlier question of the same execution (a loop, an AI Agent's
 * second reviewed call), an address without a question, or an answer after the
 * end is no longer open.
 *
 * n8n takes the waiting node's own run off the execution before the node's
 * webhook sees the call, so the record cannot live in the node's output; and it
 * evaluates parameters again when the answer arrives, so the end is never
 * computed from them a second time.
 */
import { createHash, randomBytes } from 'crypto';
import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';

export interface Question {
	/** 128 random bits, base64url: named in every answer's address (`question=`). */
	id: string;
	/** When the wait ends (epoch ms); undefined: it waits until answered. */
	endsAt?: number;
}

/** The query parameter of an answer's address that names its question. */
export const QUESTION_PARAMETER = 'question';

export function newQuestion(endsAt: number | undefined): Question {
	return endsAt === undefined ? { id: randomBytes(16).toString('base64url') } : { id: randomBytes(16).toString('base64url'), endsAt };
}

/** The date n8n waits until: the question's end, else indefinitely. */
export const waitTill = (question: Question): Date => (question.endsAt === undefined ? WAIT_INDEFINITELY : new Date(question.endsAt));

/**
 * The custom data key of a node's open question. Custom data keys hold letters,
 * digits and underscores, at most 50 characters; node ids are free text (usually a UUID).
 */
export function recordKey(nodeId: string): string {
	return `workplaceQuestion_${createHash('sha256').update(nodeId).digest('hex').slice(0, 24)}`;
}

/** The record's text: `<id>.<end in ms, or empty>`. */
export const recordText = (question: Question): string => `${question.id}.${question.endsAt ?? ''}`;

/** A record read back; undefined for anything else. */
export function readRecord(text: unknown): Question | undefined {
	if (typeof text !== 'string') return undefined;
	const match = /^([A-Za-z0-9_-]{22})\.(\d{0,16})$/.exec(text);
	if (!match) return undefined;
	return match[2] === '' ? { id: match[1] } : { id: match[1], endsAt: Number(match[2]) };
}

/** What became of an answer naming `asked`: the open question's, too late for it, or for no open question. */
export type Fit = 'open' | 'expired' | 'closed';

export function answerFits(open: Question | undefined, asked: unknown, now: number): Fit {
	if (!open || typeof asked !== 'string' || asked !== open.id) return 'closed';
	if (open.endsAt !== undefined && now >= open.endsAt) return 'expired';
	return 'open';
}

type CustomData = { get(key: string): unknown; set(key: string, value: string): void };

/**
 * The execution's custom data: the contexts' own `customData` where n8n has it
 * (2.x; its expression engine in 2.x cannot call a function of `$execution`),
 * else `$execution.customData` (1.x).
 */
function customData(ctx: IExecuteFunctions | IWebhookFunctions, i: number): CustomData | undefined {
	const own = (ctx as { customData?: CustomData }).customData;
	if (own) return own;
	if ('getWorkflowDataProxy' in ctx) return ctx.getWorkflowDataProxy(i).$execution?.customData as CustomData | undefined;
	return { get: (key) => ctx.evaluateExpression(`{{ $execution.customData.get("${key}") }}`), set: () => undefined };
}

/**
 * Records the question with the execution. Custom data takes at most 10 keys
 * per execution and n8n drops a new one silently beyond that (outside manual
 * runs), so the record is read back: a question that cannot be recorded is
 * never sent.
 */
export function recordQuestion(ctx: IExecuteFunctions, i: number, question: Question): void {
	const key = recordKey(ctx.getNode().id);
	const data = customData(ctx, i);
	data?.set(key, recordText(question));
	if (data?.get(key) !== recordText(question)) {
		throw new NodeOperationError(
			ctx.getNode(),
			'Send and Wait could not record its question with the execution: the execution\'s custom data holds at most 10 entries, and they are taken',
			{ itemIndex: i, description: 'Send and Wait keeps one entry per waiting node. Set fewer custom data entries in this workflow ($execution.customData).' },
		);
	}
}

/** The question the execution waits on at this node, as recorded when it was sent. */
export function openQuestion(ctx: IWebhookFunctions): Question | undefined {
	return readRecord(customData(ctx, 0)?.get(recordKey(ctx.getNode().id)));
}
