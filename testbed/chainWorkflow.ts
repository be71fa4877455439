/**
 * A workflow whose nodes run one after another, each connected to the next
 * and drawn 220 px to the right of it, as `n8n import:workflow` takes it: the
 * shape of the workflows the end-to-end suites and benchmarks build by hand.
 */
export interface ChainNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters?: Record<string, unknown>;
	credentials?: Record<string, unknown>;
	/** Anything else a node of that type stores (a Webhook node's webhookId). */
	[key: string]: unknown;
}

/** A type, not an interface, so it passes where a plain record is taken (n8n.importWorkflows). */
export type ChainWorkflow = {
	id: string;
	name: string;
	nodes: Array<ChainNode & { id: string; parameters: Record<string, unknown>; position: [number, number] }>;
	connections: Record<string, { main: Array<Array<{ node: string; type: 'main'; index: number }>> }>;
	settings: { executionOrder: 'v1' };
};

/** n8n's Manual Trigger, named Start: what `n8n execute --id` starts a workflow from. */
export const MANUAL_START: ChainNode = { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1 };

/** The workflow `nodes` make in this order; `nodeId` names each node's id from its place (0 first). */
export function chainWorkflow(id: string, name: string, nodes: ChainNode[], nodeId = (index: number) => `${id}-${index + 1}`): ChainWorkflow {
	return {
		id,
		name,
		nodes: nodes.map((node, index) => ({ ...node, parameters: node.parameters ?? {}, id: nodeId(index), position: [index * 220, 0] })),
		connections: Object.fromEntries(
			nodes.slice(0, -1).map((node, index) => [node.name, { main: [[{ node: nodes[index + 1].name, type: 'main' as const, index: 0 }]] }]),
		),
		settings: { executionOrder: 'v1' },
	};
}
