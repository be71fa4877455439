/**
 * The one multipart/form-data builder (group pictures, knowledge-file uploads).
 * A file part is streamed when it is a stream, and every part's length is known
 * up front, so the body is sent with a Content-Length, never chunked.
 */
import FormData from 'form-data';
import type { Readable } from 'stream';

import type { BodyPart } from './types';

export interface FilePart {
	/** Form field name of the file. */
	field: string;
	content: Readable | Buffer;
	fileName: string;
	contentType: string;
	/** Bytes of `content`. */
	size: number;
}

/** Text fields in order (a name may repeat, e.g. `uids[]`), then the file, if any. */
export function multipartBody(fields: Array<[string, string]>, file?: FilePart): BodyPart {
	const form = new FormData();
	for (const [name, value] of fields) form.append(name, value);
	if (file) {
		form.append(file.field, file.content, { filename: file.fileName, contentType: file.contentType, knownLength: file.size });
	}
	const headers: Record<string, string> = { ...(form.getHeaders() as Record<string, string>) };
	headers['content-length'] = String(form.getLengthSync());
	return { body: form, headers };
}
