import { apiRequest, read, type StreamRequest } from '../../transport';
import { knowledgeBaseLocator } from '../common.descriptions';
import type { OperationDefinition } from '../types';
import { baseMimeType, fileNameFromDisposition, storeBinary } from '../binaryFile';
import { requiredText } from '../validation';
import { ownEntry } from '../../shared/ownEntry';
import { EXTENSION_MIME_TYPES, fileIds, knowledgeFileLocator } from './common';

export const download: OperationDefinition<StreamRequest> = {
	value: 'download',
	name: 'Download',
	action: 'Download a knowledge file',
	description: 'Download a file\'s content into a binary field, streamed',
	properties: [
		knowledgeBaseLocator,
		knowledgeFileLocator,
		{
			displayName: 'Put Output File in Field',
			name: 'binaryPropertyName',
			type: 'string',
			default: 'data',
			required: true,
			hint: 'The name of the output binary field to put the file in',
		},
	],
	request(i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		requiredText(this, i, 'binaryPropertyName', 'Put Output File in Field');
		return {
			area: 'knowledgeBase',
			method: 'GET',
			path: ['knowledge', knowledgeId, 'files', fileId, 'download'],
			stream: true,
		};
	},
	async output(response, i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		const property = requiredText(this, i, 'binaryPropertyName', 'Put Output File in Field');
		const body = response.body;
		let fileName = fileNameFromDisposition(response.headers['content-disposition']);
		let mimeType = baseMimeType(response.headers['content-type']);
		if (!fileName) {
			// The name as uploaded lives in the file's meta; the download does not always carry it.
			let file: ReturnType<typeof read.object>;
			let answered = false;
			try {
				const answer = await apiRequest(this, { area: 'knowledgeBase', method: 'GET', path: ['knowledge', knowledgeId, 'files', fileId] }, i);
				file = read.object(answer.body);
				answered = true;
			} finally {
				// Failed look-up: let go of the download's connection before the error surfaces.
				if (!answered) body.stream.destroy();
			}
			const meta = read.object(file?.meta);
			fileName = read.text(meta?.originalName) ?? fileName;
			if (!mimeType) mimeType = baseMimeType(meta?.mimetype);
		}
		fileName ??= `knowledge-file-${fileId}`;
		const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
		mimeType ??= (extension && ownEntry(EXTENSION_MIME_TYPES, extension)) || 'application/octet-stream';

		const binary = await storeBinary(this, body, fileName, mimeType, `knowledge-file-${fileId}`);
		return [
			{
				json: {
					id: fileId,
					knowledgeId,
					// The service's name as it is; the binary carries it as a plain file name.
					originalName: fileName,
					fileName: binary.fileName ?? null,
					mimeType,
					size: body.meter.bytes,
					sha256: body.meter.sha256 ?? null,
				},
				binary: { [property]: binary },
			},
		];
	},
};
