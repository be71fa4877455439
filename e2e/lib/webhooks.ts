/**
 * Where an active workflow's Workplace Trigger listens in n8n: its production
 * webhook URL, and a wait until n8n has registered it. Used by `npm run dev`
 * (which points the emulator's play page at it) and the end-to-end suites.
 */
import { exampleTrigger } from './examples';


/** The trigger's webhook path (the node's `webhooks[0].path`). */
const TRIGGER_PATH = 'webhook';

/**
 * The production URL n8n serves an active workflow's Workplace Trigger on:
 * <base>/webhook/<webhookId>/<path> (n8n prefixes a node's path with its
 * webhookId unless the path is marked full; the editor's "Production URL" shows the same).
 */
export function productionWebhookUrl(n8nUrl: string, workflow: Parameters<typeof exampleTrigger>[0] & { name?: string }): string {
	const trigger = exampleTrigger(workflow);
	if (!trigger?.webhookId) throw new Error(`"${workflow.name ?? '?'}" has no Workplace Trigger with a webhookId`);
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
