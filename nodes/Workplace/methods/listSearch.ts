import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { NodeOperationError } from 'n8n-workflow';

import { apiRequest } from '../transport';

const SEARCH_PAGE_SIZE = 100;

/**
 * Knowledge bases for the resource locator. The service has no name filter, so
 * each page is filtered here and the next page number is the pagination token.
 */
export async function searchKnowledgeBases(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const page = paginationToken ? Number(paginationToken) : 1;
	const response = await apiRequest<IDataObject>(this, {
		area: 'knowledgeBase',
		method: 'GET',
		path: ['knowledge'],
		qs: { 'pagination[page]': page, 'pagination[pageSize]': SEARCH_PAGE_SIZE },
		idempotent: true,
	});
	const data = Array.isArray(response.body?.data) ? (response.body.data as IDataObject[]) : [];
	const needle = filter?.trim().toLowerCase();
	const results = data
		.filter((kb) => !needle || String(kb.name ?? '').toLowerCase().includes(needle) || String(kb.id) === needle)
		.map((kb) => ({ name: `${String(kb.name ?? 'Untitled')} (${String(kb.id)})`, value: String(kb.id) }));
	const meta = (response.body?.meta as IDataObject | undefined)?.pagination as IDataObject | undefined;
	const more =
		data.length === SEARCH_PAGE_SIZE &&
		(typeof meta?.pageCount !== 'number' || page < meta.pageCount);
	return { results, paginationToken: more ? String(page + 1) : undefined };
}

/**
 * Files of the knowledge base chosen in the same node, for the file locator.
 * Filtered by original name or id here, since the service has no filter.
 */
export async function searchKnowledgeFiles(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const raw = this.getNodeParameter('knowledgeId', '', { extractValue: true }) as unknown;
	const knowledgeId = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
	if (!/^[1-9][0-9]{0,15}$/.test(knowledgeId)) {
		throw new NodeOperationError(this.getNode(), 'Choose a knowledge base first: its files are listed here');
	}
	const page = paginationToken ? Number(paginationToken) : 1;
	const response = await apiRequest<IDataObject>(this, {
		area: 'knowledgeBase',
		method: 'GET',
		path: ['knowledge', knowledgeId, 'files'],
		qs: { 'pagination[page]': page, 'pagination[pageSize]': SEARCH_PAGE_SIZE },
		idempotent: true,
	});
	const data = Array.isArray(response.body?.data) ? (response.body.data as IDataObject[]) : [];
	const needle = filter?.trim().toLowerCase();
	const nameOf = (file: IDataObject) => String((file.meta as IDataObject | undefined)?.originalName ?? file.name ?? 'Untitled');
	const results = data
		.filter((file) => !needle || nameOf(file).toLowerCase().includes(needle) || String(file.id) === needle)
		.map((file) => ({
			// A file being deleted is not used by the language model: say so where it is picked.
			name: `${nameOf(file)} (${String(file.id)})${file.status === 'deleting' ? ' — deleting, not used by the language model' : ''}`,
			value: String(file.id),
		}));
	const meta = (response.body?.meta as IDataObject | undefined)?.pagination as IDataObject | undefined;
	const more =
		data.length === SEARCH_PAGE_SIZE &&
		(typeof meta?.pageCount !== 'number' || page < meta.pageCount);
	return { results, paginationToken: more ? String(page + 1) : undefined };
}
