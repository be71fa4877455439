/**
 * Runs a webhook node the way n8n's CLI does (webhooks/webhook-helpers.ts and
 * WebhookService.runWebhook): a real HTTP request is received by a local server,
 * the node's webhook() runs in n8n-core's WebhookContext with the request and
 * response attached to additionalData, the immediate response follows the
 * node's result (responseMode "onReceived"), and workflowData, when returned,
 * starts an execution in the real engine with the webhook node as start node.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ExecutionLifecycleHooks, WebhookContext } from 'n8n-core';
import type { IDataObject, IWebhookData, IWebhookResponseData, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { UnexpectedError, Workflow } from 'n8n-workflow';

import {
	buildAdditionalData,
	runWorkflow,
	type HarnessNodeTypes,
	type InMemoryCredentialsHelper,
	type RunWorkflowResult,
	type WorkflowJson,
} from './engine';

export interface WebhookCall {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	body: string;
	/** The node's own result (undefined when webhook() threw). */
	result?: IWebhookResponseData;
	/** The execution it started, if any (awaited before the call settles in `calls`). */
	execution?: RunWorkflowResult;
}

export interface WebhookServer {
	/** Base URL; requests to any path reach the webhook node. */
	url: string;
	/** Every call received, in order, complete with the execution it started. */
	calls: WebhookCall[];
	/** Executions started so far. */
	executions: RunWorkflowResult[];
	/** Waits until every received call has finished (response sent and execution done). */
	settled(): Promise<void>;
	close(): Promise<void>;
}

export interface WebhookServerOptions {
	workflow: WorkflowJson;
	webhookNode: string;
	nodeTypes: HarnessNodeTypes;
	credentialsHelper: InMemoryCredentialsHelper;
}

/** Request as n8n's webhook server hands it to nodes: parsed body, query and raw body. */
type WebhookRequest = IncomingMessage & { body?: unknown; rawBody?: Buffer; query: IDataObject; params: IDataObject };

async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of req) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

function sendJson(res: ServerResponse, status: number, data: unknown) {
	if (res.headersSent) return;
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify(data));
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
	const calls: WebhookCall[] = [];
	const executions: RunWorkflowResult[] = [];
	const pending = new Set<Promise<unknown>>();
	let counter = 0;

	const handle = async (req: WebhookRequest, res: ServerResponse) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		req.rawBody = await readBody(req);
		req.query = Object.fromEntries(url.searchParams);
		req.params = {};
		const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
		if (type === 'application/json' && req.rawBody.length > 0) {
			try {
				req.body = JSON.parse(req.rawBody.toString('utf8'));
			} catch {
				// n8n's body parser refuses malformed JSON before the node runs.
				sendJson(res, 400, { message: 'Failed to parse request body' });
				return { status: 400 } as Partial<WebhookCall>;
			}
		} else {
			req.body = {};
		}

		const { workflow: wfJson, nodeTypes, credentialsHelper } = options;
		const workflow = new Workflow({
			id: wfJson.id ?? 'harness-workflow',
			name: wfJson.name,
			nodes: wfJson.nodes,
			connections: wfJson.connections,
			active: true,
			nodeTypes,
			settings: wfJson.settings,
			staticData: {},
		});
		const node = workflow.getNode(options.webhookNode);
		if (!node) throw new UnexpectedError(`No node "${options.webhookNode}" in the workflow`);
		const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const description = nodeType.description.webhooks?.find((w) => w.httpMethod === req.method);
		if (!description || typeof nodeType.webhook !== 'function') {
			sendJson(res, 404, { message: `The node has no ${req.method ?? ''} webhook` });
			return { status: 404 };
		}

		const executionId = `webhook-${++counter}`;
		const hooks = new ExecutionLifecycleHooks('webhook', executionId, {
			id: workflow.id,
			name: 'webhook',
			nodes: wfJson.nodes,
			connections: wfJson.connections,
		} as never);
		const additionalData: IWorkflowExecuteAdditionalData = buildAdditionalData({
			credentialsHelper,
			hooks,
			executionId,
			workflowId: workflow.id,
		});
		additionalData.httpRequest = req as never;
		additionalData.httpResponse = res as never;
		const webhookData: IWebhookData = {
			httpMethod: description.httpMethod as IWebhookData['httpMethod'],
			node: node.name,
			path: String(description.path),
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: additionalData,
			isTest: false,
		};
		const context = new WebhookContext(workflow, node, additionalData, 'webhook', webhookData, [], null);

		let result: IWebhookResponseData;
		try {
			result = await nodeType.webhook.call(context);
		} catch (error) {
			sendJson(res, 500, { message: (error as Error).message });
			return { status: 500 };
		}

		// responseMode "onReceived", response code 200, as n8n 2.41's executeWebhook answers.
		if (result.noWebhookResponse !== true) {
			if (result.workflowData === undefined) {
				sendJson(res, 200, result.webhookResponse !== undefined ? result.webhookResponse : { message: 'Webhook call received' });
			} else {
				// The description's responseData (default 'firstEntryJson') wins over the node's
				// webhookResponse (webhook-on-received-response-extractor.ts); 'noData' sends no body.
				const responseData = description.responseData === undefined ? 'firstEntryJson' : description.responseData;
				if (responseData === 'noData') sendJson(res, 200, undefined);
				else if (responseData) sendJson(res, 200, responseData);
				else sendJson(res, 200, result.webhookResponse !== undefined ? result.webhookResponse : { message: 'Workflow was started' });
			}
		}
		if (result.workflowData === undefined) return { result };

		const execution = await runWorkflow({
			workflow: wfJson,
			nodeTypes,
			credentialsHelper,
			mode: 'webhook',
			startNodeName: node.name,
			triggerOutputs: result.workflowData,
			executionId,
		});
		executions.push(execution);
		return { result, execution };
	};

	const server: Server = createServer((req, res) => {
		const done = handle(req as WebhookRequest, res).then(
			(partial) => {
				calls.push({
					status: res.statusCode,
					headers: res.getHeaders() as WebhookCall['headers'],
					body: '',
					...partial,
				} as WebhookCall);
			},
			(error: unknown) => {
				sendJson(res, 500, { message: (error as Error).message });
				calls.push({ status: 500, headers: {}, body: String(error) });
			},
		);
		pending.add(done);
		void done.finally(() => pending.delete(done));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;

	return {
		url: `http://127.0.0.1:${port}`,
		calls,
		executions,
		async settled() {
			while (pending.size > 0) await Promise.all([...pending]);
		},
		close: async () =>
			await new Promise<void>((resolve, reject) => {
				server.closeAllConnections();
				server.close((error) => (error ? reject(error) : resolve()));
			}),
	};
}
