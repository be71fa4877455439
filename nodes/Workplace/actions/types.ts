import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IWebhookFunctions,
	IWebhookResponseData,
	NodeApiError,
	NodeExecutionHint,
} from 'n8n-workflow';

import type { ApiRequest, ResponseTo } from '../../../shared/transport';
import type { ListDefinition } from './list';

/**
 * One operation, described once as data: what the editor shows, how an item
 * becomes a request (validating locally first), whether it lists pages, and how
 * the answer becomes output items. The router executes it through the transport.
 * `Request` is the request type `request` builds; `output` gets that request
 * back, and the answer typed for it (a counted stream for `stream: true`).
 * CONTRIBUTING.md walks through adding one.
 */
export interface OperationDefinition<Request extends ApiRequest = ApiRequest> {
	/** Operation value as stored in workflows. */
	value: string;
	name: string;
	/** Sentence shown in the nodes panel and used by AI agents. */
	action: string;
	description: string;
	/** Parameters of this operation; the resource adds the displayOptions. */
	properties: INodeProperties[];
	/**
	 * Builds the request for item i; throws NodeOperationError before anything is
	 * sent. Called ahead of sending (BuiltRequests), also for items a
	 * failure leaves unsent: it reads (parameters, a binary's metadata) and checks,
	 * and sends nothing; a file's content is read in `body`, when it is sent.
	 */
	request?(this: IExecuteFunctions, i: number): Request | Promise<Request>;
	/**
	 * For local operations, instead of `request`: builds item i's output without
	 * talking to the service (so such a resource needs no credential).
	 */
	localOutput?(this: IExecuteFunctions, i: number): INodeExecutionData[] | Promise<INodeExecutionData[]>;
	/** For list operations: the request is paged, and Return All / Limit apply (list.ts). */
	list?: ListDefinition;
	/** Turns the response into output items; default: the JSON body as one item. `request` is the one request(i) built. */
	output?(
		this: IExecuteFunctions,
		response: ResponseTo<Request>,
		i: number,
		request: Request,
	): INodeExecutionData[] | Promise<INodeExecutionData[]>;
	/**
	 * A second request when the service refuses the first with `error` (e.g. an
	 * older path of the same resource); undefined lets the refusal stand. `output`
	 * gets the request that was answered.
	 */
	fallback?(this: IExecuteFunctions, error: NodeApiError, i: number, request: Request): Request | undefined;
	/**
	 * The Simplify toggle's shape of one output item (actions/simplify.ts); the
	 * router applies it when the toggle is on (version 3 on, default on).
	 */
	simplify?(json: IDataObject): IDataObject;
	/**
	 * Send and Wait: the run sends for the first item only (an execution waits
	 * for one answer, as in n8n's chat nodes), and `output` puts it to wait.
	 */
	waits?: true;
	/**
	 * A waiting operation's webhook: where n8n sends the calls to the waiting
	 * node (`<waiting base>/<execution>/<node id>`, the node's restart webhooks)
	 * while the execution waits there. The node's webhook() runs the one of the
	 * chosen resource and operation, as execute() runs its request.
	 */
	webhook?(this: IWebhookFunctions): Promise<IWebhookResponseData>;
	/** Hints shown with the output once all items ran (e.g. items the service will not use). */
	hints?(this: IExecuteFunctions, output: INodeExecutionData[]): NodeExecutionHint[];
}

export interface ResourceDefinition {
	value: string;
	name: string;
	description: string;
	operations: OperationDefinition[];
	/** Default operation in the editor. */
	defaultOperation: string;
}
