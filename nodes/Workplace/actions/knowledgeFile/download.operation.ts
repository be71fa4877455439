import type { StreamRequest } from '../../../../shared/transport';
import { knowledgeBaseLocator, optionsCollection, outputFileProperty } from '../../../../shared/descriptions';
import { itemMaxDownloadBytes, maxDownloadSizeOption } from '../../../../shared/maxDownloadSize';
import type { OperationDefinition } from '../types';
import { outputBinaryField } from '../../../../shared/validation';
import { fileIds, knowledgeFileLocator } from '../../../../shared/knowledgeFile/file';
import { downloadRequest, storeDownload } from '../../../../shared/knowledgeFile/fileContent';
import { sendingItem } from '../requestSettings';

export const download: OperationDefinition<StreamRequest> = {
	value: 'download',
	name: 'Download',
	action: 'Download a knowledge file',
	description: 'Download a file\'s content into a binary field, streamed',
	properties: [
		knowledgeBaseLocator,
		knowledgeFileLocator,
		outputFileProperty('file'),
		optionsCollection([maxDownloadSizeOption]),
	],
	request(i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		outputBinaryField(this, i, 'binaryPropertyName', 'Put Output File in Field');
		return downloadRequest(knowledgeId, fileId, itemMaxDownloadBytes(this, i));
	},
	async output(response, i) {
		const { knowledgeId, fileId } = fileIds(this, i);
		const property = outputBinaryField(this, i, 'binaryPropertyName', 'Put Output File in Field');
		const { binary, originalName, size, mimeType, sha256 } = await storeDownload(this, response, knowledgeId, fileId, sendingItem(this, i));
		// The file item's fields a download knows (named as in every node's file item), and the content's checksum.
		return [
			{
				json: { id: fileId, originalName, size, mimeType, knowledgeId, sha256 },
				binary: { [property]: binary },
			},
		];
	},
};
