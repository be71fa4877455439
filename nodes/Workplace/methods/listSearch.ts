import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

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
