/**
 * What an operation hands the transport (ApiRequest) and what it gets back
 * (ApiResponse), and the service's APIs a request can go to.
 */
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, ILoadOptionsFunctions, IPollFunctions, IWebhookFunctions } from 'n8n-workflow';

import type { Effect, ErrorText } from './failureMessages';
import type { RetryPolicy } from './retry';

/** Who sends requests: an operation's run, an editor list, a polling trigger's poll, or a webhook's call (the Workplace Trigger's reply in the chat). */
export type Context = IExecuteFunctions | ILoadOptionsFunctions | IPollFunctions | IWebhookFunctions;

export type ServiceApiName = 'knowledgeBase' | 'taskProjects' | 'bot';

export interface ApiRequest {
	api: ServiceApiName;
	method: IHttpRequestMethods;
	/** Segments after the API's path prefix. Each is percent-encoded, so no id can change the path. */
	path: Array<string | number>;
	qs?: IDataObject;
	/** JSON body, or a factory for a body built anew for every attempt (multipart, read from the binary store). */
	body?: IDataObject | (() => Promise<BodyPart>);
	/** Form-encoded body (application/x-www-form-urlencoded), instead of `body`. */
	form?: Record<string, string>;
	/**
	 * What the request makes, changes or sends ("task", "message"), named when its
	 * fate is unknown after a failure ("the task may have been created"). The
	 * router fills it from the resource name.
	 */
	subject?: string;
	/**
	 * What the request does to its subject when it is not what its method says
	 * (POST creates, PUT and PATCH update, DELETE deletes): a message is `delivered`.
	 */
	effect?: Effect;
	/**
	 * What the request does, as the node's actions say it ("Get a knowledge base"),
	 * named with the item in messages that say what happened. The router fills it.
	 */
	operation?: string;
	/**
	 * Hand back the response body as a stream (downloads): a CountedBody that counts
	 * and hashes the bytes as they pass and fails when the body ends short of its
	 * Content-Length.
	 */
	stream?: boolean;
	/**
	 * The most bytes a streamed answer may have (Max Download Size): a larger
	 * Content-Length fails before anything is read, a body that runs past it
	 * fails while it streams. DEFAULT_MAX_DOWNLOAD_BYTES when not given.
	 */
	maxBytes?: number;
	/**
	 * What a refusal means for this operation, by status: text that leads the
	 * error, the service's own following in brackets (e.g. 403 on a group look-up:
	 * not a member), or a function that rewords the error as the node would say
	 * it (undefined keeps it). The service's details stay in the description.
	 */
	statusMeanings?: Partial<Record<number, string | ((text: ErrorText) => ErrorText | undefined)>>;
}

/** A request whose answer is streamed (downloads). */
export type StreamRequest = ApiRequest & { stream: true };

export interface BodyPart {
	body: unknown;
	headers?: Record<string, string>;
	/** Bytes of a file in the body (an upload): the attempt gets the time they take (limits.ts, attemptTimeMs). */
	fileBytes?: number;
	/**
	 * Lets go of what sending the body opened and did not read to its end (the
	 * HTTP client stops reading a body when the answer comes first, and never
	 * cancels it). Called when the attempt is over.
	 */
	release?: () => Promise<void>;
}

export interface ApiResponse<T = unknown> {
	statusCode: number;
	headers: Record<string, string | string[] | undefined>;
	body: T;
	/** Attempts it took, the answered one included (more than 1 after a 429 or a refused connection, for a POST). */
	attempts?: number;
	/**
	 * Set when an attempt whose answer was lost (named here: `ECONNRESET`, `503`, …)
	 * may have done the work, and the repeat answered with what the work leaves
	 * behind (a DELETE's 404): the request is done; statusCode and body are the repeat's.
	 */
	doneByEarlierAttempt?: string;
}


/** How one item's requests are sent: its retry policy and timeout (the node's request settings, read by the router). */
export interface RequestSettings {
	policy: RetryPolicy;
	timeoutMs: number;
	/** Sent under what the service's limiter learned (a spacing between sends): node version 4. Every request waits out a pause the service asked for. */
	adaptive?: boolean;
}

/** What apiRequest is told besides the request: the item it is for, and that item's settings (the defaults when not given). */
export interface SendOptions {
	itemIndex?: number;
	settings?: RequestSettings;
}
