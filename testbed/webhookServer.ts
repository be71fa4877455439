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
import { parse as parseQuery } from 'node:querystring';
import { createGunzip, createInflate } from 'node:zlib';

import { ExecutionLifecycleHooks, HookContext, WebhookContext } from 'n8n-core';
import type { IDataObject, INode, IWebhookData, IWebhookDescription, IWebhookResponseData, IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { jsonParse, UnexpectedError, Workflow } from 'n8n-workflow';

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
	/** Run the node's webhook methods as publishing the workflow does first (default true). */
	activate?: boolean;
	/**
	 * Serve the node as n8n's waiting webhook does for the execution of this id
	 * (Send and Wait): webhook() runs with that execution id, and an answer
	 * (workflowData) starts nothing here: the test resumes the waiting run with it.
	 */
	waitingExecutionId?: string;
	/** The n8n address the node's own URLs use (its webhook URL among them); default http://localhost:5678. */
	baseUrl?: string;
}

/**
 * Request as n8n's webhook server hands it to nodes: the fields n8n-workflow declares on
 * IncomingMessage (contentType, encoding, rawBody, readRawBody), parsed body, query, params.
 */
export type WebhookRequest = IncomingMessage & { body?: unknown; query: IDataObject; params: IDataObject };

/**
 * n8n 2.41's rawBodyReader middleware (cli/src/middlewares/body-parser.ts, with
 * @n8n/backend-network's parseIncomingMessage): content type and charset read
 * from the header, and a lazy readRawBody() that gunzips/inflates per
 * Content-Encoding and keeps the bytes in `rawBody`.
 */
export function attachRawBodyReader(req: WebhookRequest) {
	const header = req.headers['content-type'];
	if (header) {
		const [type, ...parameters] = header.split(';');
		req.contentType = type.toLowerCase();
		const charset = parameters
			.map((p) => p.split('='))
			.find(([key]) => key.trim().toLowerCase() === 'charset')?.[1]
			?.trim()
			.replace(/^"|"$/g, '');
		req.encoding = (charset ?? 'utf-8').toLowerCase() as BufferEncoding;
	}
	req.readRawBody = async () => {
		if (req.rawBody) return;
		const encoding = req.headers['content-encoding'];
		const stream: NodeJS.ReadableStream =
			encoding === 'gzip' ? req.pipe(createGunzip()) : encoding === 'deflate' ? req.pipe(createInflate()) : req;
		const chunks: Buffer[] = [];
		for await (const chunk of stream) chunks.push(chunk as Buffer);
		req.rawBody = Buffer.concat(chunks);
		req._body = true;
	};
}

export class UnprocessableRequest extends Error {}

const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

function isParsableContentType(contentType: string | undefined): boolean {
	if (!contentType) return false;
	return (
		contentType.startsWith('application/json') ||
		contentType.startsWith('text/plain') ||
		contentType.startsWith('application/x-www-form-urlencoded') ||
		contentType.endsWith('/xml') ||
		contentType.endsWith('+xml')
	);
}

/**
 * n8n 2.41's parseRequestBody (cli/src/webhooks/webhook-helpers.ts) and
 * parseBody: a version-1 node with the `binaryData` option gets the stream
 * untouched; a later version reads nothing for a content type it does not
 * parse; otherwise the raw bytes are read and JSON, form and text bodies
 * parsed. Nothing parsed leaves `body` undefined (webhook routes sit before
 * n8n's general body parser). Not mirrored: multipart (formidable) and XML
 * (xml2js), which no node of this package receives.
 */
export async function parseRequestBody(req: WebhookRequest, node: INode): Promise<void> {
	const options = node.parameters.options as IDataObject | undefined;
	if (node.typeVersion === 1 && options?.binaryData) return;
	const { contentType } = req;
	if (contentType === 'multipart/form-data') throw new UnexpectedError('The harness does not parse multipart webhook bodies');
	if (node.typeVersion > 1 && !isParsableContentType(contentType)) return;
	await req.readRawBody();
	if (!req.rawBody.length) return;
	const text = () => req.rawBody.toString(req.encoding);
	try {
		if (contentType === 'application/json') req.body = jsonParse(stripBom(text()));
		else if (contentType === 'application/x-www-form-urlencoded') req.body = parseQuery(stripBom(text()), undefined, undefined, { maxKeys: 1000 });
		else if (contentType === 'text/plain') req.body = text();
	} catch (error) {
		throw new UnprocessableRequest((error as Error).message);
	}
}

function sendJson(res: ServerResponse, status: number, data: unknown) {
	if (res.headersSent) return;
	res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
	res.end(JSON.stringify(data));
}

/** Servers started so far: a workflow without an id gets one of its own, as each saved workflow has in n8n. */
let servers = 0;

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
	const calls: WebhookCall[] = [];
	const executions: RunWorkflowResult[] = [];
	const pending = new Set<Promise<unknown>>();
	let counter = 0;

	const { workflow: wfJson, nodeTypes, credentialsHelper } = options;
	const workflowId = wfJson.id ?? `harness-workflow-${++servers}`;
	/** The workflow as n8n loads it (defaults filled in, parameters not shown dropped), and its webhook node. */
	const load = () => {
		const workflow = new Workflow({
			id: workflowId,
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
		return { workflow, node, nodeType: nodeTypes.getByNameAndVersion(node.type, node.typeVersion) };
	};

	/** What n8n registers for one webhook of the node (IWebhookData). */
	const webhookData = (description: IWebhookDescription, node: INode, additionalData: IWorkflowExecuteAdditionalData): IWebhookData => ({
		httpMethod: description.httpMethod as IWebhookData['httpMethod'],
		node: node.name,
		path: String(description.path),
		webhookDescription: description,
		workflowId: additionalData.workflowId ?? workflowId,
		workflowExecuteAdditionalData: additionalData,
	});

	if (options.activate !== false) {
		// Activation, as WebhookService.createWebhookIfNotExists does it when a workflow is
		// published: checkExists, then create when it says false; a throw fails activation.
		const { workflow, node, nodeType } = load();
		for (const description of nodeType.description.webhooks ?? []) {
			const methods = nodeType.webhookMethods?.[description.name];
			if (!methods) continue;
			const hooks = new ExecutionLifecycleHooks('webhook', 'activation', { id: workflow.id, name: 'activation' } as never);
			const additionalData = buildAdditionalData({ credentialsHelper, hooks, executionId: 'activation', workflowId: workflow.id });
			const context = new HookContext(workflow, node, additionalData, 'webhook', 'activate', webhookData(description, node, additionalData));
			if (!(await methods.checkExists.call(context))) await methods.create.call(context);
		}
	}

	const handle = async (req: WebhookRequest, res: ServerResponse) => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		attachRawBodyReader(req);
		req.query = Object.fromEntries(url.searchParams);
		req.params = {};

		const { workflow, node, nodeType } = load();
		const description = nodeType.description.webhooks?.find((w) => w.httpMethod === req.method);
		if (!description || typeof nodeType.webhook !== 'function') {
			sendJson(res, 404, { message: `The node has no ${req.method ?? ''} webhook` });
			return { status: 404 };
		}
		try {
			await parseRequestBody(req, node);
		} catch (error) {
			if (!(error instanceof UnprocessableRequest)) throw error;
			// n8n answers an UnprocessableRequestError before the node runs.
			sendJson(res, 422, { code: 422, message: 'Failed to parse request body', hint: error.message });
			return { status: 422 };
		}

		const executionId = options.waitingExecutionId ?? `webhook-${++counter}`;
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
			baseUrl: options.baseUrl,
		});
		additionalData.httpRequest = req as never;
		additionalData.httpResponse = res as never;
		const data = { ...webhookData(description, node, additionalData), isTest: false };
		const context = new WebhookContext(workflow, node, additionalData, 'webhook', data, [], null);

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
		if (result.workflowData === undefined || options.waitingExecutionId !== undefined) return { result };

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
