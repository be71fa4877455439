/**
 * A scripted OpenAI-compatible chat endpoint under /v1, for running n8n's AI
 * Agent against the emulator without any network or model: POST
 * /v1/chat/completions answers what `state.script` decides for the request
 * (tool calls or a final answer), as JSON or, when asked for `stream: true`,
 * as OpenAI's server-sent chunks; GET /v1/models lists the one model. Bearer
 * auth with the emulator's API key. Not part of the workplace service: the
 * chat model a user would connect to the AI Agent, scripted by the test.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiRegistrar } from '../types';
import { bearerToken, isPlainObject } from '../common/helpers';

export const SCRIPTED_MODEL = 'workplace-scripted';

/** One message of a chat completion request (the fields the script reads). */
export interface ChatMessage {
	role: string;
	content?: string | Array<{ type: string; text?: string }> | null;
	tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
}

export interface ChatCompletionRequest {
	model: string;
	messages: ChatMessage[];
	tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
	stream?: boolean;
	[key: string]: unknown;
}

/** What the script answers: tool calls for the client to run, or the final text. */
export type ScriptedTurn = { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> } | { content: string };

export type ChatScript = (request: ChatCompletionRequest) => ScriptedTurn;

export interface OpenAiState {
	/** Decides each answer; without one the endpoint answers 503. */
	script?: ChatScript;
	/** Every chat completion request received, parsed. */
	requests: ChatCompletionRequest[];
	calls: number;
}

export function createOpenAiState(): OpenAiState {
	return { requests: [], calls: 0 };
}

/** Text of a message's content, whether a string or content parts. */
export function messageText(message: ChatMessage): string {
	if (typeof message.content === 'string') return message.content;
	return (message.content ?? []).map((part) => part.text ?? '').join('');
}

function openAiError(reply: FastifyReply, status: number, type: string, message: string): FastifyReply {
	return reply.code(status).send({ error: { message, type, param: null, code: null } });
}

export const registerOpenAiRoutes: ApiRegistrar<OpenAiState> = (app, { config, state }) => {
	const authorized = (request: FastifyRequest, reply: FastifyReply): boolean => {
		if (bearerToken(request) === config.apiKey) return true;
		openAiError(reply, 401, 'invalid_request_error', 'Incorrect API key provided.');
		return false;
	};

	app.get('/v1/models', async (request, reply) => {
		if (!authorized(request, reply)) return reply;
		return { object: 'list', data: [{ id: SCRIPTED_MODEL, object: 'model', created: 0, owned_by: 'workplace-emulator' }] };
	});

	app.post('/v1/chat/completions', async (request, reply) => {
		if (!authorized(request, reply)) return reply;
		const body = request.body;
		if (!isPlainObject(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
			return openAiError(reply, 400, 'invalid_request_error', 'model and messages are required');
		}
		const chat = body as ChatCompletionRequest;
		state.requests.push(chat);
		if (!state.script) return openAiError(reply, 503, 'server_error', 'No script is set for the scripted model');
		let turn: ScriptedTurn;
		try {
			turn = state.script(chat);
		} catch (error) {
			return openAiError(reply, 500, 'server_error', `The script failed: ${(error as Error).message}`);
		}
		state.calls += 1;
		const id = `chatcmpl-${state.calls}`;
		const created = Math.floor(Date.now() / 1000);
		const toolCalls =
			'toolCalls' in turn
				? turn.toolCalls.map((call, index) => ({
						id: `call_${state.calls}_${index}`,
						type: 'function' as const,
						function: { name: call.name, arguments: JSON.stringify(call.arguments) },
					}))
				: undefined;
		const message = toolCalls
			? { role: 'assistant', content: null, tool_calls: toolCalls }
			: { role: 'assistant', content: (turn as { content: string }).content };
		const finishReason = toolCalls ? 'tool_calls' : 'stop';
		const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };

		if (!chat.stream) {
			return { id, object: 'chat.completion', created, model: chat.model, choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }], usage };
		}
		// Server-sent chunks: the whole message in one delta, then the finish reason, then [DONE].
		const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
			`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: chat.model, choices, ...extra })}\n\n`;
		const delta = toolCalls
			? { role: 'assistant', content: null, tool_calls: toolCalls.map((call, index) => ({ index, ...call })) }
			: message;
		let events = chunk([{ index: 0, delta, finish_reason: null }]) + chunk([{ index: 0, delta: {}, finish_reason: finishReason }]);
		if (isPlainObject(chat.stream_options) && chat.stream_options.include_usage) events += chunk([], { usage });
		events += 'data: [DONE]\n\n';
		return reply.type('text/event-stream').header('cache-control', 'no-cache').send(events);
	});
};
