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
 * a CORS preflight (OPTIONS with an Origin): n8n answers it itself, listing the
 * path's registered methods in Access-Control-Allow-Methods, so the trigger
 * never sees it and nothing is logged (an unsigned POST would be logged as a
 * refused signature, and one before registration as an unknown webhook).
 */
export async function waitForTriggerWebhook(url: string, timeoutMs = 120_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	let last = '';
	while (Date.now() < deadline) {
		const answer = await fetch(url, { method: 'OPTIONS', headers: { origin: new URL(url).origin } }).then(
			async (response) => {
				await response.arrayBuffer();
				return { status: response.status, methods: response.headers.get('access-control-allow-methods') ?? '' };
			},
			(error: unknown) => ({ status: 0, methods: String(error) }),
		);
		if (answer.status >= 200 && answer.status < 300 && /\bPOST\b/.test(answer.methods)) return;
		last = `${answer.status} ${answer.methods}`;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error(`the Workplace Trigger's webhook ${url} was not registered within ${timeoutMs / 1000} s (last answer: ${last})`);
}
