/**
 * Simplify (on by default from version 3): the fields a person looks for first,
 * named plainly, instead of the service's whole answer. Each operation whose
 * answer is large names one of these in its spec (`simplify`); the router
 * applies it to every output item when the Simplify toggle is on. Pure
 * functions of one output item, so each is tested on its own.
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { read } from '../../../shared/transport';

/** The toggle, shown from version 3 on (versions 1 and 2 keep the raw answer, as their workflows expect). */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return the fields a person looks for first instead of the service\'s whole answer',
};

/** Keeps the fields that are there, in this order (an absent field is left out, not set to null). */
function pick(entries: Array<[string, unknown]>): IDataObject {
	const out: IDataObject = {};
	for (const [name, value] of entries) if (value !== undefined) out[name] = value as IDataObject[string];
	return out;
}

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
 * A knowledge file: its name as uploaded (meta.originalName; the service's own
 * `name` is a storage name), size, type, status and whether the language model
 * uses it, and its knowledge base's id and name instead of the whole base.
 */
export function simplifyKnowledgeFile(file: IDataObject): IDataObject {
	const meta = read.object(file.meta) ?? {};
	const knowledge = read.object(file.knowledge);
	return pick([
		['id', file.id],
		['name', meta.originalName ?? file.name],
		['size', meta.size],
		['type', meta.mimetype],
		['status', file.status],
		['usedByLanguageModel', file.usedByLanguageModel],
		['knowledgeId', knowledge?.id ?? file.knowledgeId],
		['knowledgeName', knowledge?.name],
		['updatedAt', file.updatedAt],
	]);
}

/**
 * A replaced file: the file as above, and the upload's checksum (what proves
 * which content is there), or `skipped` when Skip If Unchanged uploaded nothing.
 */
export function simplifyReplacedFile(file: IDataObject): IDataObject {
	return pick([...Object.entries(simplifyKnowledgeFile(file)), ['sha256', read.object(file.upload)?.sha256], ['skipped', file.skipped]]);
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

/** Said in place of ids when the service confirmed a send without any. */
export const NO_IDS_GIVEN = 'The service confirmed the send but gave no message id';

/**
 * A send: where it went and the ids the service gave, or `ids` saying plainly
 * that it gave none (one documented answer is only {"status":"success"}).
 */
export function simplifySend(sent: IDataObject): IDataObject {
	const ids = pick([
		['messageId', sent.messageId ?? undefined],
		['threadId', sent.threadId],
	]);
	return pick([
		['sent', sent.sent],
		['groupId', sent.groupId],
		['topicId', sent.topicId ?? undefined],
		['userId', sent.userId],
		['replyWith', sent.replyWith],
		['messageCount', sent.messageCount],
		...Object.entries(ids),
		['ids', Object.keys(ids).length === 0 ? NO_IDS_GIVEN : undefined],
	]);
}
