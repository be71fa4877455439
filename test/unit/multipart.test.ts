/**
 * A streamed file part lets go of its source (a file in n8n's store) once the
 * attempt is over, whether the client read it, stopped reading it, or the
 * answer came while the source was still being opened
 * (shared/transport/multipart.ts). The engine test "rebuilds the streamed body
 * when the transport retries the PUT" checks the same over real HTTP; this one
 * holds the source's opening back, which the engine test meets only by chance.
 */
import { multipartBody } from '../../shared/transport/multipart';

/** A source of two chunks that says whether it was closed, a gate that holds back its opening, and when the client asked for it. */
function gatedSource() {
	const state = { closed: false, chunksRead: 0 };
	let open!: () => void;
	const opened = new Promise<void>((resolve) => (open = resolve));
	let ask!: () => void;
	const asked = new Promise<void>((resolve) => (ask = resolve));
	async function* source() {
		try {
			for (const chunk of [Buffer.from('ab'), Buffer.from('cd')]) {
				state.chunksRead++;
				yield chunk;
			}
		} finally {
			state.closed = true;
		}
	}
	const content = async () => {
		ask();
		await opened;
		return source();
	};
	return { state, open, asked, content };
}

function partOf(content: () => Promise<AsyncIterable<Uint8Array>>) {
	const part = multipartBody([], { field: 'file', fileName: 'a.pdf', contentType: 'application/pdf', size: 4, content });
	return { file: part.body instanceof FormData ? (part.body.get('file') as File) : undefined, release: part.release! };
}

describe('multipartBody: a file part lets go of its source', () => {
	it('released while its source was being opened: the source is closed once it opens', async () => {
		const { state, open, asked, content } = gatedSource();
		const { file, release } = partOf(content);
		const reader = file!.stream().getReader();
		const first = reader.read();
		await asked;
		await release();
		open();
		expect(await first).toEqual({ done: true, value: undefined });
		expect(state.closed).toBe(true);
	});

	it('released after the client read a chunk and stopped: the source is closed', async () => {
		const { state, open, content } = gatedSource();
		open();
		const { file, release } = partOf(content);
		const reader = file!.stream().getReader();
		expect(Buffer.from((await reader.read()).value!).toString()).toBe('ab');
		await release();
		expect(state.closed).toBe(true);
	});

	it('read to its end: closed by its own end, release changes nothing', async () => {
		const { state, open, content } = gatedSource();
		open();
		const { file, release } = partOf(content);
		expect(Buffer.from(await new Response(file!.stream()).arrayBuffer()).toString()).toBe('abcd');
		expect(state).toEqual({ closed: true, chunksRead: 2 });
		await release();
		expect(state.chunksRead).toBe(2);
	});

	it('released before the client began: the source is never opened', async () => {
		const { state, open, content } = gatedSource();
		open();
		const { file, release } = partOf(content);
		await release();
		expect(await file!.stream().getReader().read()).toEqual({ done: true, value: undefined });
		expect(state).toEqual({ closed: false, chunksRead: 0 });
	});
});
