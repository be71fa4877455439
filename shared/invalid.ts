/**
 * The form of a local-check error: `Invalid "<field>" in item <i>: <problem>`
 * for a parameter of an item (the operations, the request settings), and
 * `Invalid "<field>": <problem>` for a setting of a node that has no items (a
 * polling trigger's). A v2 message's problem says where in the message it
 * sits as well (MessageProblem in actions/message/model.ts).
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export function invalid(ctx: { getNode(): INode }, i: number, field: string, problem: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Invalid "${field}" in item ${i}: ${problem}`, {
		itemIndex: i,
	});
}

export function invalidSetting(ctx: { getNode(): INode }, field: string, problem: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Invalid "${field}": ${problem}`);
}
