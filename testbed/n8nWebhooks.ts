/**
 * Where an active workflow's triggers listen in n8n: the Workplace Trigger's
 * production webhook URL, the MCP Server Trigger's URL, and a wait until n8n
 * has registered them. Used by `npm run dev` (which points the emulator's play
 * page at the first) and the end-to-end suites.
 */
import { exampleMcpTrigger, exampleTrigger } from './examples';
import { until } from './until';

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
 * The production URL MCP clients connect to (Streamable HTTP, and SSE from a
 * GET) for an active workflow's MCP Server Trigger (version 2): <base>/mcp/<path>
 * (the node's webhooks are full paths under n8n's MCP endpoint, N8N_ENDPOINT_MCP, "mcp" by default).
 */
export function mcpServerUrl(n8nUrl: string, workflow: Parameters<typeof exampleMcpTrigger>[0] & { name?: string }): string {
	const path = exampleMcpTrigger(workflow)?.parameters?.path;
	if (typeof path !== 'string' || !path) throw new Error(`"${workflow.name ?? '?'}" has no MCP Server Trigger with a path`);
	return `${n8nUrl.replace(/\/$/, '')}/mcp/${path}`;
}

/** The URLs an active workflow's triggers listen on: its Workplace Trigger's and its MCP Server Trigger's, those it has. */
export function listeningUrls(n8nUrl: string, workflow: Parameters<typeof exampleTrigger>[0] & Parameters<typeof exampleMcpTrigger>[0] & { name?: string }): string[] {
	return [
		...(exampleTrigger(workflow) ? [productionWebhookUrl(n8nUrl, workflow)] : []),
		...(exampleMcpTrigger(workflow) ? [mcpServerUrl(n8nUrl, workflow)] : []),
	];
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
	await until(`the trigger's webhook ${url} to be registered`, async () => {
		const response = await fetch(url, { method: 'OPTIONS', headers: { origin: new URL(url).origin } });
		await response.arrayBuffer();
		const methods = response.headers.get('access-control-allow-methods') ?? '';
		if (response.ok && /\bPOST\b/.test(methods)) return true;
		throw new Error(`last answer: ${response.status} ${methods}`);
	}, timeoutMs);
}
