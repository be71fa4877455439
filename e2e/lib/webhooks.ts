/**
 * Where an active workflow's Workplace Trigger listens in n8n: its production
 * webhook URL, and a wait until n8n has registered it. Used by `npm run dev`
 * (which points the emulator's play page at it) and the end-to-end suites.
 */

/** The trigger's node type as n8n names a community package's node. */
export const WORKPLACE_TRIGGER_TYPE = 'n8n-nodes-workplace.workplaceTrigger';

/** The trigger's webhook path (the node's `webhooks[0].path`). */
const TRIGGER_PATH = 'webhook';

interface WorkflowNodes {
	name?: string;
	nodes: Array<{ name: string; type: string; webhookId?: string; disabled?: boolean }>;
}

/** The enabled Workplace Trigger of a workflow, or undefined when it has none. */
export function workplaceTrigger(workflow: WorkflowNodes): { name: string; webhookId: string } | undefined {
	const node = workflow.nodes.find((n) => n.type === WORKPLACE_TRIGGER_TYPE && !n.disabled);
	if (!node) return undefined;
	if (!node.webhookId) throw new Error(`the Workplace Trigger "${node.name}" of "${workflow.name ?? '?'}" has no webhookId`);
	return { name: node.name, webhookId: node.webhookId };
}

/**
 * The production URL n8n serves an active workflow's Workplace Trigger on:
 * <base>/webhook/<webhookId>/<path> (n8n prefixes a node's path with its
 * webhookId unless the path is marked full; the editor's "Production URL" shows the same).
 */
export function productionWebhookUrl(n8nUrl: string, workflow: WorkflowNodes): string {
	const trigger = workplaceTrigger(workflow);
	if (!trigger) throw new Error(`"${workflow.name ?? '?'}" has no Workplace Trigger`);
	return `${n8nUrl.replace(/\/$/, '')}/webhook/${trigger.webhookId}/${TRIGGER_PATH}`;
}

/**
 * Waits until n8n has registered the trigger's webhook (it activates published
 * workflows while it starts, possibly after it answers readiness). The probe is
 * an unsigned call, which the trigger refuses with 401 and so starts nothing;
 * before registration n8n answers 404.
 */
export async function waitForTriggerWebhook(url: string, timeoutMs = 120_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	let last = '';
	while (Date.now() < deadline) {
		const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"events":[]}' }).then(
			async (response) => ({ status: response.status, text: (await response.text()).slice(0, 200) }),
			(error: unknown) => ({ status: 0, text: String(error) }),
		);
		if (answer.status === 401) return;
		last = `${answer.status} ${answer.text}`;
		if (answer.status !== 404 && answer.status !== 0) throw new Error(`${url} answered an unsigned call with ${last}, not 401`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error(`the Workplace Trigger's webhook ${url} was not registered within ${timeoutMs / 1000} s (last answer: ${last})`);
}
