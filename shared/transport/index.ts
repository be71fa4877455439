/**
 * The transport: the only part of the node that talks to the service. Operations
 * describe requests as data (ApiRequest); apiRequest (apiRequest.ts) executes them.
 */
export { buildPath, parseBaseUrl } from './baseUrl';
export { AnswerTooLarge, incompleteBodyError, ByteCounter, CountedBody, type BinaryStream } from './body';
export { SERVICE_APIS, type ServiceApi } from './serviceApis';
export { TokenRequestFailure } from './tokenRequestFailure';
export { apiRequest, type ResponseTo } from './apiRequest';
export { limiterFor, type ServiceLimiter } from './serviceLimiter';
export { boundedRequest, viaHttpRequest, viaLegacyRequest, type Answer, type Bounds, type OutgoingRequest, type Transmit } from './boundedRequest';
export { DeadlinePassed } from './deadline';
export {
	DEFAULT_MAX_DOWNLOAD_BYTES,
	DEFAULT_TIMEOUT_MS,
	EDITOR_TIMEOUT_MS,
	MAX_JSON_BYTES,
	MAX_LIST_ITEMS,
	MAX_LIST_PAGES,
} from './limits';
export { goneOnRepeat, type Effect, type ErrorText } from './failureMessages';
export { parseErrorBody } from './errorBody';
export { addToDescription, asNodeError } from './errors';
export { multipartBody, type FilePart } from './multipart';
export {
	LIST_READS,
	ListChangedError,
	ListTooLongError,
	paginate,
	positionFromToken,
	positionToken,
	readPage,
	type ListPosition,
	type Page,
	type PageOptions,
} from './paging';
export * as read from './jsonValues';
export {
	backoffDelay,
	decideRetry,
	DEFAULT_RETRY_POLICY,
	parseRetryAfter,
	safeToRepeat,
	TOKEN_REQUEST,
	type Outcome,
	type RetryDecision,
	type RetryPolicy,
	type RetryRequest,
} from './retry';
export type { ServiceApiName, ApiRequest, ApiResponse, BodyPart, Context, RequestSettings, SendOptions, StreamRequest } from './types';
