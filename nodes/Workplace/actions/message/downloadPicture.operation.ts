import { read, type StreamRequest } from '../../../../shared/transport';
import { baseMimeType, fileNameFromDisposition, storeBinary } from '../../../../shared/binaryFile';
import type { OperationDefinition } from '../types';
import { invalid, outputBinaryField, textId } from '../../../../shared/validation';
import { ownEntry } from '../../../../shared/ownEntry';
import { optionsCollection, outputFileProperty } from '../../../../shared/descriptions';
import { itemMaxDownloadBytes, maxDownloadSizeOption } from '../../../../shared/maxDownloadSize';

const SIZES = ['small', 'medium', 'large'] as const;
const EXTENSIONS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

function picture(path: 'image' | 'view', id: string, size: string, maxBytes: number | undefined): StreamRequest {
	return { api: 'bot', method: 'GET', path: ['file', path, id], qs: { size }, stream: true, maxBytes };
}

export const downloadPicture: OperationDefinition<StreamRequest> = {
	value: 'downloadPicture',
	name: 'Download Picture',
	action: 'Download a picture a user sent',
	description: 'Download a picture a user sent to the bot into a binary field, streamed',
	properties: [
		{
			displayName: 'Picture ID',
			name: 'pictureId',
			type: 'string',
			default: '={{ $json.event.message.pictureId }}',
			required: true,
			description: 'The pictureId of a picture message event (the Workplace Trigger keeps the event under "event")',
		},
		{
			displayName: 'Size',
			name: 'size',
			type: 'options',
			default: 'large',
			options: [
				{ name: 'Small', value: 'small' },
				{ name: 'Medium', value: 'medium' },
				{ name: 'Large', value: 'large' },
			],
		},
		outputFileProperty('picture'),
		optionsCollection([maxDownloadSizeOption]),
	],
	request(i) {
		const id = textId(this, i, 'pictureId', 'Picture ID');
		const size = this.getNodeParameter('size', i, 'large') as string;
		if (!(SIZES as readonly string[]).includes(size)) throw invalid(this, i, 'Size', `must be one of ${SIZES.join(', ')}, got "${size}"`);
		outputBinaryField(this, i, 'binaryPropertyName', 'Put Output File in Field');
		return picture('image', id, size, itemMaxDownloadBytes(this, i));
	},
	// The service's pages give two paths for pictures, /file/image/ and /file/view/; the second is tried on a 4xx.
	fallback(error, _i, request) {
		const status = Number(error.httpCode);
		if (request.path[1] !== 'image' || !(status >= 400 && status < 500) || status === 401 || status === 429) return undefined;
		return picture('view', String(request.path[2]), String(request.qs?.size), request.maxBytes);
	},
	async output(response, i, request) {
		const id = String(request.path[2]);
		const property = outputBinaryField(this, i, 'binaryPropertyName', 'Put Output File in Field');
		const body = response.body;
		const mimeType = baseMimeType(response.headers['content-type']) ?? 'application/octet-stream';
		const fileName = fileNameFromDisposition(response.headers['content-disposition']) ?? `picture-${id}.${ownEntry(EXTENSIONS, mimeType) ?? 'bin'}`;
		const binary = await storeBinary(this, body, fileName, mimeType, `picture-${id}`);
		return [
			{
				json: {
					pictureId: id,
					imageSize: read.text(request.qs?.size) ?? null,
					// The binary's plain name, and the one the service sent as it is.
					fileName: binary.fileName ?? null,
					originalFileName: fileName,
					mimeType,
					size: body.counter.bytes,
					sha256: body.counter.sha256 ?? null,
					endpoint: `GET /${request.path.slice(0, 2).join('/')}/`,
				},
				binary: { [property]: binary },
			},
		];
	},
};
