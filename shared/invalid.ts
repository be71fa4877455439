/**
 * The one form of every local-check error, shared by the operations and the
 * transport (which checks "Retry and Timeout"): `Invalid "<field>" in item <i>: <problem>`.
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export function invalid(ctx: { getNode(): INode }, i: number, field: string, problem: string): NodeOperationError {
	return new NodeOperationError(ctx.getNode(), `Invalid "${field}" in item ${i}: ${problem}`, {
		itemIndex: i,
	});
}
