/**
 * The one multipart/form-data builder (group pictures, knowledge-file uploads),
 * on the platform's own FormData and File: n8n's request helper hands a
 * FormData to axios, which writes it part by part and reads a file part
 * through its stream(), with a Content-Length from the parts' sizes, never
 * chunked. A file part is read only while it is being sent, never whole.
 */
import type { BodyPart } from './types';

export interface FilePart {
	/** Form field name of the file. */
	field: string;
	/**
	 * The bytes, or a function that opens them. It is called for every send
	 * (n8n sends the same body again after refreshing a token), so each send
	 * reads the file from the start.
	 */
	content: Uint8Array | (() => Promise<AsyncIterable<Uint8Array> | Uint8Array>);
	fileName: string;
	contentType: string;
	/** Bytes of `content`. */
	size: number;
}

/**
 * A File whose bytes are read when it is sent. Its size is known up front (so
 * the body's length is), and stream() opens the content anew on every call.
 */
class StreamedFile extends File {
	readonly #part: FilePart;

	constructor(part: FilePart) {
		super([], part.fileName, { type: part.contentType });
		this.#part = part;
		// File's own size is that of the (empty) parts given to the constructor.
		Object.defineProperty(this, 'size', { value: part.size });
	}

	stream(): ReadableStream<Uint8Array> {
		const { content } = this.#part;
		const released = () => this.#released;
		const opened = this.#opened;
		return ReadableStream.from(
			(async function* () {
				if (released()) return;
				const bytes = typeof content === 'function' ? await content() : content;
				if (bytes instanceof Uint8Array) {
					yield bytes;
					return;
				}
				const iterator = bytes[Symbol.asyncIterator]();
				// Released while the source was being opened (the answer came before the client read the file):
				// let go of it now, as release() did of the others.
				if (released()) return await letGo(iterator, false);
				opened.push(iterator);
				yield* { [Symbol.asyncIterator]: () => iterator };
			})(),
		);
	}

	readonly #opened: Array<AsyncIterator<Uint8Array>> = [];
	#released = false;

	/** Lets go of the sources opened so far and of any opened later: the attempt is over (a client that stops reading never does). */
	async release(): Promise<void> {
		this.#released = true;
		await Promise.all(this.#opened.splice(0).map(async (iterator) => await letGo(iterator, true)));
	}
}

/**
 * Stops reading a source, which closes what it holds (a file in n8n's store). An async generator runs its
 * clean-up only once started, so one never read is started first (it reads one chunk).
 */
async function letGo(iterator: AsyncIterator<Uint8Array>, started: boolean): Promise<void> {
	if (!started) await iterator.next().catch(() => undefined);
	await iterator.return?.().catch(() => undefined);
}

/** Text fields in order (a name may repeat, e.g. `uids[]`), then the file, if any. */
export function multipartBody(fields: Array<[string, string]>, file?: FilePart): BodyPart {
	const form = new FormData();
	for (const [name, value] of fields) form.append(name, value);
	if (!file) return { body: form };
	const streamed = new StreamedFile(file);
	// No file name argument: FormData would copy the file into a new File, losing stream().
	form.append(file.field, streamed);
	// A stream the client left unread keeps its source (a file in n8n's store) open: let go of it.
	return { body: form, release: async () => await streamed.release(), fileBytes: file.size };
}
