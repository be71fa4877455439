import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { apiRequest, DEFAULT_RETRY_POLICY, EDITOR_TIMEOUT_MS, positionFromToken, positionToken, read, readPage, type ApiRequest, type SendOptions } from '../transport';
import { positiveId } from '../positiveId';

const SEARCH_PAGE_SIZE = 100;

/** A person waits for each list in the editor: every answer within EDITOR_TIMEOUT_MS. */
const IN_THE_EDITOR: SendOptions = { settings: { policy: DEFAULT_RETRY_POLICY, timeoutMs: EDITOR_TIMEOUT_MS } };

/**
 * One page of a list for a resource locator. The service has no name filter, so
 * each page is filtered here by name or id; the pagination token is where the list stands (paging.ts).
 */
async function searchPage(
	ctx: ILoadOptionsFunctions,
	request: ApiRequest,
	filter: string | undefined,
	paginationToken: string | undefined,
	nameOf: (item: IDataObject) => string,
	label: (item: IDataObject) => string,
): Promise<INodeListSearchResult> {
	const { items, next } = await readPage(ctx, request, positionFromToken(paginationToken), SEARCH_PAGE_SIZE, IN_THE_EDITOR);
	const needle = filter?.trim().toLowerCase();
	const results = items
		.filter((item) => !needle || nameOf(item).toLowerCase().includes(needle) || String(item.id) === needle)
		.map((item) => ({ name: label(item), value: String(item.id) }));
	return { results, paginationToken: next ? positionToken(next) : undefined };
}

/** Knowledge bases for the resource locator. */
export async function searchKnowledgeBases(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const nameOf = (kb: IDataObject) => String(kb.name ?? '');
	const request: ApiRequest = { api: 'knowledgeBase', method: 'GET', path: ['knowledge'], operation: 'Search knowledge bases' };
	return await searchPage(this, request, filter, paginationToken, nameOf, (kb) =>
		`${String(kb.name ?? 'Untitled')} (${String(kb.id)})`,
	);
}

/** Files of the knowledge base chosen in the same node, for the file locator, by original name or id. */
export async function searchKnowledgeFiles(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const knowledgeId = positiveId(this.getNodeParameter('knowledgeId', '', { extractValue: true }));
	if (knowledgeId === undefined) {
		throw new NodeOperationError(this.getNode(), 'Choose a knowledge base first: its files are listed here');
	}
	const nameOf = (file: IDataObject) => String(read.object(file.meta)?.originalName ?? file.name ?? 'Untitled');
	const request: ApiRequest = { api: 'knowledgeBase', method: 'GET', path: ['knowledge', knowledgeId, 'files'], operation: 'Search knowledge files' };
	// A file being deleted is not used by the language model: say so where it is picked.
	return await searchPage(this, request, filter, paginationToken, nameOf, (file) =>
		`${nameOf(file)} (${String(file.id)})${file.status === 'deleting' ? ' — deleting, not used by the language model' : ''}`,
	);
}

/**
 * Users for the user locator, looked up by username as the service allows
 * (GET /bot/v1/users?username=, a part of the name is enough). Deleted accounts
 * are left out: nothing can be sent to them.
 */
export async function searchUsers(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const username = filter?.trim();
	if (!username) return { results: [] };
	const { body } = await apiRequest(this, { api: 'bot', method: 'GET', path: ['bot', 'v1', 'users'], qs: { username } }, IN_THE_EDITOR);
	const results = read
		.list(read.object(body)?.users)
		.filter((user) => user.deleted !== true && read.text(user._id) !== undefined)
		.map((user) => {
			const name = [read.text(user.firstname), read.text(user.lastname)].filter(Boolean).join(' ');
			return { name: `${String(user.username)}${name ? ` (${name})` : ''}`, value: String(user._id) };
		});
	return { results };
}
