import type { ResourceDefinition } from '../types';
import { downloadPicture } from './downloadPicture.operation';
import { reply } from './reply.operation';
import { sendAndWait } from './sendAndWait.operation';
import { sendFileToGroup } from './sendFileToGroup.operation';
import { sendToGroup } from './sendToGroup.operation';
import { sendToUser } from './sendToUser.operation';

export const message: ResourceDefinition = {
	value: 'message',
	name: 'Message',
	description: 'What the bot says: to groups, topics and people, and in reply to events',
	defaultOperation: 'sendToGroup',
	operations: [sendToGroup, sendToUser, sendFileToGroup, sendAndWait, reply, downloadPicture],
};
