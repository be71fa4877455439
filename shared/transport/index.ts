/**
 * The transport: the only part of the node that talks to the service. Operations
 * describe requests as data (ApiRequest); apiRequest (apiRequest.ts) executes them.
 */
export { buildPath, parseBaseUrl } from './baseUrl';
export { incompleteBodyError, ByteCounter, CountedBody, type BinaryStream } from './body';
export { SERVICE_APIS, type ServiceApi } from './serviceApis';
export { TokenRequestFailure } from './tokenRequestFailure';
export { apiRequest, DEFAULT_TIMEOUT_MS, type ResponseTo } from './apiRequest';
export { goneOnRepeat, type Effect, type ErrorText } from './failureMessages';
export { parseErrorBody } from './errorBody';
export { asNodeError } from './errors';
export { multipartBody, type FilePart } from './multipart';
export {
	LIST_READS,
	ListChangedError,
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
