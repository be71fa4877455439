/**
 * Simplify (on by default from version 3): the fields a person looks for first,
 * named plainly, instead of the service's whole answer. Each operation whose
 * answer is large names one of these in its spec (`simplify`); the router
 * applies it to every output item when the Simplify toggle is on. Pure
 * functions of one output item, so each is tested on its own.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { read } from '../../../shared/transport';
import { pick } from '../../../shared/pick';
import { fileItemFields } from '../../../shared/knowledgeFile/file';

/** The toggle, shown from version 3 on (versions 1 and 2 keep the raw answer, as their workflows expect). */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return the fields a person looks for first instead of the service\'s whole answer',
};

/** A knowledge base: id, name, where its content comes from, languages, when it last changed. */
export function simplifyKnowledgeBase(kb: IDataObject): IDataObject {
	return pick([
		['id', kb.id],
		['name', kb.name],
		['source', kb.source],
		['target', kb.target],
		['supportedLanguages', kb.supportedLanguages],
		['updatedAt', kb.updatedAt],
	]);
}

/**
 * A knowledge file: the file item's fields (shared/knowledgeFile/file.ts), the
 * same in every node: the name as uploaded (`originalName`), size, type, status,
 * whether the language model uses it, its knowledge base's id and name, when it
 * was created and changed.
 */
export const simplifyKnowledgeFile = fileItemFields;

/**
 * A replaced file: the file item, and the upload's checksum (what proves
 * which content is there), or `skipped` when Skip If Unchanged uploaded nothing.
 */
export function simplifyReplacedFile(file: IDataObject): IDataObject {
	return pick([...Object.entries(fileItemFields(file)), ['sha256', read.object(file.upload)?.sha256], ['skipped', file.skipped]]);
}

/** A user: id, username, full name, and the contact fields the answer has. */
export function simplifyUser(user: IDataObject): IDataObject {
	const name = [user.firstname, user.lastname].filter((part) => typeof part === 'string' && part.trim() !== '').join(' ');
	return pick([
		['id', user._id ?? user.id],
		['username', user.username],
		['name', name || undefined],
		['email', user.email],
		['position', user.position],
		['deleted', user.deleted],
		['networkAdmin', user.network_admin],
	]);
}

/**
 * A send: where it went, the message ids the service gave (`ids`, a list, empty
 * when it gave none; `messageId` when it gave one) and, when it gave none, a
 * `note` saying so (one documented answer is only {"status":"success"}).
 */
export function simplifySend(sent: IDataObject): IDataObject {
	return pick([
		['sent', sent.sent],
		['groupId', sent.groupId],
		['topicId', sent.topicId ?? undefined],
		['userId', sent.userId],
		['replyWith', sent.replyWith],
		['messageCount', sent.messageCount],
		['ids', sent.ids],
		['messageId', sent.messageId ?? undefined],
		['threadId', sent.threadId],
		['note', sent.note],
	]);
}
