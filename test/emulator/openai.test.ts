import { SCRIPTED_MODEL, type ChatCompletionRequest } from '../../emulator/standIns/openAiChat';
import { type Emulator, startTestEmulator } from './helpers';

let emu: Emulator;

beforeAll(async () => {
	emu = await startTestEmulator();
});
afterAll(() => emu.close());
beforeEach(() => emu.reset());

type Json = Record<string, unknown>;

async function chat(body: unknown, key = emu.config.apiKey) {
	const res = await fetch(`${emu.url}/v1/chat/completions`, {
		method: 'POST',
		headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
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
		emu.openAi.script = () => ({ content: 'hi' });
		expect((await chat({ messages: [] })).status).toBe(400);
	});

	it('answers the tool calls the script decides, in chat.completion form, and records the request', async () => {
		emu.openAi.script = (request) => ({
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
		expect(emu.openAi.requests).toHaveLength(1);
		expect(emu.openAi.requests[0].messages[0]).toEqual({ role: 'user', content: 'Find @nattaya.p' });
	});

	it('streams a final answer as server-sent chunks ending in [DONE]', async () => {
		emu.openAi.script = () => ({ content: 'Done: task tsk_1.' });
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
		const res = await fetch(`${emu.url}/v1/models`, { headers: { authorization: `Bearer ${emu.config.apiKey}` } });
		expect(((await res.json()) as { data: Json[] }).data.map((m) => m.id)).toEqual([SCRIPTED_MODEL]);
	});
});
