/**
 * n8n's waiting webhooks over executions kept as n8n keeps them: the CLI's
 * WaitingWebhooks.executeWebhook and webhook-helpers' executeWebhook, for
 * executions a node put to wait (Send and Wait), on n8n 2.41.1's terms or n8n
 * 1.85.4's.
 *
 * `ExecutionStore` is n8n's database: every request reads its own copy of an
 * execution (status and data, serialized as stored), so nothing passes from
 * one request to the next but what is stored, and what the node holds in its
 * own memory. A `WaitingWebhookServer` is one n8n process serving
 * `/webhook-waiting/<execution>/<node id>`: two servers on one store are two
 * processes (queue mode's webhook processes, or two mains), a server closed and
 * another started is a restart; each may load the package on its own (a
 * process has its own module memory).
 *
 * Per request, as n8n does it: the execution is read (unknown: 404; running:
 * 409; finished: n8n's "No action required" page for a Send and Wait node);
 * on 2.x a Send and Wait node's resume URL must carry a valid signature (else
 * 401); the waiting node's own run is taken off, the node disabled and its
 * webhook run with the execution's data; when it returns an answer the
 * execution is resumed with it. On 2.x the execution is marked running only
 * if it still waits, in one step (else n8n's "already being resumed", 500),
 * and the node's response is sent after that; on 1.x the response is sent
 * first and the execution is marked running unconditionally.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Container } from '@n8n/di';
import { ExecutionLifecycleHooks, InstanceSettings, validateUrlSignature, WebhookContext } from 'n8n-core';
import type { IDataObject, INode, IRun, IRunExecutionData, IWebhookData, IWebhookResponseData, WorkflowExecuteMode } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION, UnexpectedError, Workflow } from 'n8n-workflow';

import {
	buildAdditionalData,
	continueWorkflow,
	openWaitingData,
	runWorkflow,
	summarize,
	type HarnessNodeTypes,
	type InMemoryCredentialsHelper,
	type RunWorkflowResult,
	type WorkflowJson,
} from './engine';
import { attachRawBodyReader, parseRequestBody, UnprocessableRequest, type WebhookRequest } from './webhookServer';

type Status = 'waiting' | 'running' | 'success' | 'error';

interface Row {
	workflow: WorkflowJson;
	mode: WorkflowExecuteMode;
	status: Status;
	/** The execution's data as stored (JSON), read afresh by every request. */
	data: string;
}

const statusOf = (run: IRun): Status => (run.waitTill ? 'waiting' : run.status === 'success' ? 'success' : run.status === 'waiting' ? 'waiting' : 'error');

/** n8n's database of executions, as far as waiting webhooks read and write it. */
export class ExecutionStore {
	private readonly rows = new Map<string, Row>();
	private counter = 0;
	/** How often each execution was resumed by an answer. */
	readonly resumed = new Map<string, number>();
	/** The address every process's resume URLs use (n8n's WEBHOOK_URL, shared by its processes). */
	publicUrl = 'http://localhost:5678';
	private together?: { count: number; arrived: number; all: Promise<void>; release: () => void };

	constructor(
		readonly nodeTypes: HarnessNodeTypes,
		readonly credentialsHelper: InMemoryCredentialsHelper,
	) {}

	/** Runs `workflow` as a new execution (a production run, as a published workflow's webhook starts it) and stores it. */
	async start(workflow: WorkflowJson, items: IDataObject[] = [{}]): Promise<{ id: string; run: RunWorkflowResult }> {
		const id = String(++this.counter);
		const mode: WorkflowExecuteMode = 'webhook';
		const run = await runWorkflow({ workflow, nodeTypes: this.nodeTypes, credentialsHelper: this.credentialsHelper, executionId: id, mode, baseUrl: this.publicUrl, triggerItems: items.map((json) => ({ json })) });
		this.rows.set(id, { workflow, mode, status: statusOf(run.run), data: JSON.stringify(run.run.data) });
		return { id, run };
	}

	/**
	 * The next `count` requests read their execution at the same moment: each
	 * waits, once it has read it, until all have (answers arriving together,
	 * before any of them resumed the execution).
	 */
	arriveTogether(count: number): void {
		let release = () => {};
		const all = new Promise<void>((resolve) => (release = resolve));
		this.together = { count, arrived: 0, all, release };
	}

	/** Where a request waits for the others of arriveTogether, once it has read its execution. */
	async arrived(): Promise<void> {
		const together = this.together;
		if (!together) return;
		if (++together.arrived >= together.count) {
			this.together = undefined;
			together.release();
		}
		await together.all;
	}

	/** A copy of the stored execution, as a database read gives it; undefined when there is none. */
	read(id: string): { workflow: WorkflowJson; mode: WorkflowExecuteMode; status: Status; data: IRunExecutionData } | undefined {
		const row = this.rows.get(id);
		return row && { workflow: row.workflow, mode: row.mode, status: row.status, data: JSON.parse(row.data) as IRunExecutionData };
	}

	status(id: string): Status | undefined {
		return this.rows.get(id)?.status;
	}

	/** The stored execution's data, read. */
	data(id: string): IRunExecutionData {
		const row = this.rows.get(id);
		if (!row) throw new UnexpectedError(`No execution ${id}`);
		return JSON.parse(row.data) as IRunExecutionData;
	}

	/**
	 * Marks an execution running for a resume: on n8n 2.x only while it waits, in one
	 * step (`UPDATE … WHERE status = 'waiting'`); on 1.x whatever its status.
	 */
	markRunning(id: string, onlyIfWaiting: boolean): boolean {
		const row = this.rows.get(id);
		if (!row || (onlyIfWaiting && row.status !== 'waiting')) return false;
		row.status = 'running';
		this.resumed.set(id, (this.resumed.get(id) ?? 0) + 1);
		return true;
	}

	save(id: string, run: IRun): void {
		const row = this.rows.get(id);
		if (!row) throw new UnexpectedError(`No execution ${id}`);
		row.status = statusOf(run);
		row.data = JSON.stringify(run.data);
	}
}

export interface WaitingCall {
	method: string;
	url: string;
	status: number;
	/** What the waiting node's webhook returned, when it ran. */
	result?: IWebhookResponseData;
}

export interface WaitingWebhookServer {
	url: string;
	calls: WaitingCall[];
	/** Waits until every received call is answered and every resume it started has ended. */
	settled(): Promise<void>;
	close(): Promise<void>;
}

export interface WaitingWebhookOptions {
	store: ExecutionStore;
	/** This process's loaded package (default: the store's). */
	nodeTypes?: HarnessNodeTypes;
	/** Whose terms: n8n 2.41.1's (default) or 1.85.4's. */
	version?: 1 | 2;
	/** Listen on this port (a restarted process on the address its predecessor had); default any free one. */
	port?: number;
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
	if (res.headersSent) return;
	res.statusCode = status;
	res.setHeader('content-type', 'application/json; charset=utf-8');
	res.end(JSON.stringify(body));
}

function sendHtml(res: ServerResponse, status: number, title: string) {
	res.statusCode = status;
	res.setHeader('content-type', 'text/html; charset=utf-8');
	res.end(`<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>`);
}

/** What n8n 2.x's static response does with a node's response: a text as HTML (express's default), anything else as JSON, in the sandbox CSP. */
function sendResponse(res: ServerResponse, response: unknown) {
	if (res.headersSent) return;
	res.statusCode = 200;
	res.setHeader('content-security-policy', 'sandbox allow-downloads allow-forms allow-modals allow-orientation-lock allow-pointer-lock allow-popups');
	if (typeof response === 'string') {
		if (!res.hasHeader('content-type')) res.setHeader('content-type', 'text/html; charset=utf-8');
		res.end(response);
	} else {
		if (!res.hasHeader('content-type')) res.setHeader('content-type', 'application/json; charset=utf-8');
		res.end(JSON.stringify(response ?? { message: 'Workflow was started' }));
	}
}

/** A multipart body as n8n's formidable parser leaves it: `{ data: fields, files }`, a field sent once as a value, more often as a list. */
async function parseMultipart(req: WebhookRequest): Promise<void> {
	await req.readRawBody();
	const form = await new Request('http://x/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: req.rawBody }).formData();
	const data: Record<string, string | string[]> = {};
	for (const [name, value] of form.entries()) {
		if (typeof value !== 'string') continue;
		const had = data[name];
		data[name] = had === undefined ? value : [...[had].flat(), value];
	}
	req.body = { data, files: {} };
}

const isSendAndWaitNode = (node: INode | undefined) => node?.parameters.operation === SEND_AND_WAIT_OPERATION;

export async function startWaitingWebhooks(options: WaitingWebhookOptions): Promise<WaitingWebhookServer> {
	const { store } = options;
	const nodeTypes = options.nodeTypes ?? store.nodeTypes;
	const version = options.version ?? 2;
	const calls: WaitingCall[] = [];
	const pending = new Set<Promise<unknown>>();

	const handle = async (req: WebhookRequest, res: ServerResponse, call: WaitingCall): Promise<void> => {
		const url = new URL(req.url ?? '/', 'http://127.0.0.1');
		const [, base, executionId, suffix] = url.pathname.split('/');
		if (base !== 'webhook-waiting' || !executionId) return sendJson(res, 404, { code: 404, message: 'The requested webhook is not registered.' });
		attachRawBodyReader(req);
		req.query = Object.fromEntries(url.searchParams);
		req.params = {};

		const execution = store.read(executionId);
		await store.arrived();
		if (!execution) return sendJson(res, 404, { code: 404, message: `The execution "${executionId}" does not exist.` });
		const workflow = new Workflow({ id: execution.workflow.id ?? 'harness-workflow', name: execution.workflow.name, nodes: execution.workflow.nodes, connections: execution.workflow.connections, active: true, nodeTypes, settings: execution.workflow.settings, staticData: {} });
		const suffixNode = Object.values(workflow.nodes).find((n) => n.id === suffix);
		const sendAndWait = isSendAndWaitNode(suffixNode);
		if (version === 2 && execution.data.resumeToken && sendAndWait) {
			const signature = url.searchParams.get('signature') ?? '';
			if (!signature || !validateUrlSignature(signature, url, Container.get(InstanceSettings).hmacSignatureSecret)) return sendHtml(res, 401, 'Invalid Form Link');
		}
		if (execution.status === 'running') return sendJson(res, 409, { code: 409, message: `The execution "${executionId}" is running already.` });
		if (execution.data.resultData.error) return sendJson(res, 409, { code: 409, message: `The execution "${executionId}" has finished with error.` });
		if (execution.status !== 'waiting') {
			if (sendAndWait) return sendHtml(res, 200, 'No action required');
			return sendJson(res, 409, { code: 409, message: `The execution "${executionId} has finished already.` });
		}

		const data = execution.data;
		const waitingName = openWaitingData(data);
		const node = workflow.getNode(waitingName);
		if (!node) throw new UnexpectedError(`No node "${waitingName}"`);
		const nodeType = nodeTypes.getByNameAndVersion(node.type, node.typeVersion);
		const description = (nodeType.description.webhooks ?? []).find(
			(w) => w.httpMethod === req.method && w.restartWebhook === true && workflow.expression.getSimpleParameterValue(node, w.path, execution.mode, {}) === suffix,
		);
		if (!description || typeof nodeType.webhook !== 'function') {
			if (sendAndWait) return sendHtml(res, 200, 'No action required');
			return sendJson(res, 404, { code: 404, message: `The workflow for execution "${executionId}" does not contain a waiting webhook with a matching path/method.` });
		}
		try {
			if (req.method === 'POST' && req.contentType === 'multipart/form-data') await parseMultipart(req);
			else if (req.method === 'POST' && node.parameters.responseType === 'customForm' && sendAndWait && version === 2) return sendJson(res, 415, { code: 415, message: 'Expected multipart/form-data' });
			else await parseRequestBody(req, node);
		} catch (error) {
			if (!(error instanceof UnprocessableRequest)) throw error;
			return sendJson(res, 422, { code: 422, message: 'Failed to parse request body', hint: error.message });
		}

		const hooks = new ExecutionLifecycleHooks(execution.mode, executionId, { id: workflow.id, name: 'waiting', nodes: execution.workflow.nodes, connections: execution.workflow.connections } as never);
		const additionalData = buildAdditionalData({ credentialsHelper: store.credentialsHelper, hooks, executionId, workflowId: workflow.id, baseUrl: store.publicUrl });
		additionalData.httpRequest = req as never;
		additionalData.httpResponse = res as never;
		const webhookData: IWebhookData = { httpMethod: description.httpMethod as IWebhookData['httpMethod'], node: node.name, path: suffix, webhookDescription: description, workflowId: workflow.id, workflowExecuteAdditionalData: additionalData };
		const context = new WebhookContext(workflow, node, additionalData, execution.mode, webhookData, [], data);
		let result: IWebhookResponseData;
		try {
			result = await nodeType.webhook.call(context);
		} catch (error) {
			return sendJson(res, 500, { code: 0, message: 'Workflow Webhook Error: Workflow could not be started!', error: (error as Error).message });
		}
		call.result = result;
		if (result.noWebhookResponse === true && result.workflowData === undefined) return;
		if (result.workflowData === undefined) return sendResponse(res, result.webhookResponse ?? { message: 'Webhook call received' });

		// The answer: resume the execution with it.
		if (version === 1) sendResponse(res, result.webhookResponse);
		if (!store.markRunning(executionId, version === 2)) {
			return sendJson(res, 500, { code: 0, message: 'Execution is already being resumed by another process' });
		}
		if (version === 2 && result.noWebhookResponse !== true) sendResponse(res, result.webhookResponse);
		const entry = data.executionData!.nodeExecutionStack[0];
		entry.data = { main: result.workflowData };
		entry.metadata = { ...entry.metadata, forwardAllOutputs: true } as never;
		const resumed = await continueWorkflow({ workflow: execution.workflow, nodeTypes, credentialsHelper: store.credentialsHelper, executionId, mode: execution.mode, baseUrl: store.publicUrl, data });
		store.save(executionId, resumed.run);
	};

	const server: Server = createServer((req, res) => {
		const call: WaitingCall = { method: req.method ?? '', url: req.url ?? '', status: 0 };
		const done = handle(req as WebhookRequest, res, call).then(
			() => {
				call.status = res.statusCode;
				calls.push(call);
			},
			(error: unknown) => {
				sendJson(res, 500, { message: (error as Error).message });
				calls.push({ ...call, status: 500 });
			},
		);
		pending.add(done);
		void done.finally(() => pending.delete(done));
	});
	await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		calls,
		async settled() {
			while (pending.size > 0) await Promise.all([...pending]);
		},
		close: async () => {
			if (!server.listening) return;
			await new Promise<void>((resolve, reject) => {
				server.closeAllConnections();
				server.close((error) => (error ? reject(error) : resolve()));
			});
		},
	};
}

/** An execution as stored, summarized (each node's runs and outputs). */
export const storedRun = (store: ExecutionStore, id: string): RunWorkflowResult => summarize({ data: store.data(id), mode: 'webhook', startedAt: new Date(), status: 'success' } as IRun, []);
