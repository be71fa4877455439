import { SCRIPTED_MODEL, type ChatCompletionRequest } from '../../emulator/openAiCompatibleModel/chatCompletions';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed();

type Json = Record<string, unknown>;

async function chat(body: unknown, key = bed.emulator.config.apiKey) {
	const res = await bed.call('/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${key}` }, json: body });
	return { status: res.status, type: res.headers.get('content-type') ?? '', text: res.text };
}

const conversation = (extra: Partial<ChatCompletionRequest> = {}) => ({
	model: SCRIPTED_MODEL,
	messages: [{ role: 'user', content: 'Find @nattaya.p' }],
	tools: [{ type: 'function', function: { name: 'find_user', parameters: { type: 'object' } } }],
	...extra,
});

describe('scripted OpenAI-compatible endpoint', () => {
	it('refuses a wrong API key in OpenAI error form', async () => {
		const res = await chat(conversation(), 'not-the-key');
		expect(res.status).toBe(401);
		expect((JSON.parse(res.text) as { error: Json }).error).toMatchObject({ type: 'invalid_request_error' });
	});

	it('answers 503 without a script, and 400 without model or messages', async () => {
		expect((await chat(conversation())).status).toBe(503);
		bed.emulator.openAi.script = () => ({ content: 'hi' });
		expect((await chat({ messages: [] })).status).toBe(400);
	});

	it('answers the tool calls the script decides, in chat.completion form, and records the request', async () => {
		bed.emulator.openAi.script = (request) => ({
			toolCalls: [{ name: request.tools![0].function.name, arguments: { username: 'nattaya.p' } }],
		});
		const res = await chat(conversation());
		expect(res.status).toBe(200);
		const body = JSON.parse(res.text) as { object: string; choices: Array<{ message: Json; finish_reason: string }> };
		expect(body.object).toBe('chat.completion');
		expect(body.choices[0].finish_reason).toBe('tool_calls');
		expect(body.choices[0].message).toEqual({
			role: 'assistant',
			content: null,
			tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'find_user', arguments: '{"username":"nattaya.p"}' } }],
		});
		expect(bed.emulator.openAi.requests).toHaveLength(1);
		expect(bed.emulator.openAi.requests[0].messages[0]).toEqual({ role: 'user', content: 'Find @nattaya.p' });
	});

	it('streams a final answer as server-sent chunks ending in [DONE]', async () => {
		bed.emulator.openAi.script = () => ({ content: 'Done: task tsk_1.' });
		const res = await chat(conversation({ stream: true, stream_options: { include_usage: true } }));
		expect(res.type).toContain('text/event-stream');
		const events = res.text.trim().split('\n\n').map((line) => line.replace(/^data: /, ''));
		expect(events.at(-1)).toBe('[DONE]');
		const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as { choices: Array<{ delta: Json; finish_reason: string | null }>; usage?: Json });
		expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: 'Done: task tsk_1.' });
		expect(chunks[1].choices[0].finish_reason).toBe('stop');
		expect(chunks[2].usage).toBeDefined();
	});

	it('lists the scripted model', async () => {
		const res = await bed.call<{ data: Json[] }>('/v1/models', { headers: { authorization: `Bearer ${bed.emulator.config.apiKey}` } });
		expect(res.body.data.map((m) => m.id)).toEqual([SCRIPTED_MODEL]);
	});
});
