/**
 * A complete listing of the watched knowledge bases and their files, read
 * through the paging reader Get Many uses (pages of 100). A listing the
 * trigger cannot trust whole fails: a request error, a page the reader
 * refuses, a list longer than the reader reads (MAX_LIST_PAGES,
 * MAX_LIST_ITEMS), a count that disagrees with the total the metadata names,
 * an id listed twice. The trigger then reports nothing and keeps its state, so a
 * partial listing never reports files as removed.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { asNodeError, ListTooLongError, paginate, read, type ApiRequest, type Page, type SendOptions } from '../../shared/transport';
import { positiveId } from '../../shared/positiveId';
import type { ListedBase } from './changes';

/** The page size Get Many asks for (the service may serve fewer; the reader follows the metadata). */
export const LIST_PAGE_SIZE = 100;

const KEPT = 'nothing was reported and the recorded state was kept';

/** Every item of one list, checked whole. `what` names the list in errors. */
async function completeList(ctx: IPollFunctions, request: ApiRequest, what: string, sending: SendOptions): Promise<IDataObject[]> {
	let last: Page | undefined;
	let items: IDataObject[];
	try {
		items = await paginate(ctx, request, { pageSize: LIST_PAGE_SIZE, onPage: (page) => (last = page) }, sending);
	} catch (error) {
		// paginate throws node errors only; a list too long to read also says the state was kept.
		const failure = asNodeError(ctx, error, undefined);
		if (failure instanceof ListTooLongError) failure.message += `; ${KEPT}`;
		throw failure;
	}
	const total = last?.meta?.total;
	if (total !== undefined && total !== items.length) {
		throw new NodeOperationError(ctx.getNode(), `The listing of ${what} ended with ${items.length} items where its metadata names ${total}; ${KEPT}`, {
			description: 'The list may have changed while it was read, or the service served pages differently than it said. The next poll reads it again.',
		});
	}
	const ids = new Set<string>();
	for (const item of items) {
		const id = item.id;
		if (typeof id !== 'number' && typeof id !== 'string') {
			throw new NodeOperationError(ctx.getNode(), `The listing of ${what} holds an item without an id; ${KEPT}`);
		}
		if (ids.has(String(id))) {
			throw new NodeOperationError(ctx.getNode(), `The listing of ${what} holds ${String(id)} twice (the list moved while it was read); ${KEPT}`);
		}
		ids.add(String(id));
	}
	return items;
}

export async function listFiles(ctx: IPollFunctions, knowledgeId: number, sending: SendOptions): Promise<IDataObject[]> {
	const request: ApiRequest = { api: 'knowledgeBase', method: 'GET', path: ['knowledge', knowledgeId, 'files'], operation: 'List the files of a knowledge base' };
	return await completeList(ctx, request, `knowledge base ${knowledgeId}'s files`, sending);
}

/** One knowledge base: its files, and the base as its files carry it (`knowledge`), or its id alone when it has none. */
export async function listOne(ctx: IPollFunctions, knowledgeId: number, sending: SendOptions): Promise<ListedBase[]> {
	const files = await listFiles(ctx, knowledgeId, sending);
	const carried = files.map((file) => read.object(file.knowledge)).find((base) => base !== undefined);
	return [{ id: knowledgeId, base: carried ?? { id: knowledgeId }, files }];
}

/** Every knowledge base and the files of each: one list of bases, then each base's files. */
export async function listAll(ctx: IPollFunctions, sending: SendOptions): Promise<ListedBase[]> {
	const request: ApiRequest = { api: 'knowledgeBase', method: 'GET', path: ['knowledge'], operation: 'List knowledge bases' };
	const bases = await completeList(ctx, request, 'knowledge bases', sending);
	const listed: ListedBase[] = [];
	for (const base of bases) {
		const id = positiveId(base.id);
		if (id === undefined) throw new NodeOperationError(ctx.getNode(), `The listing of knowledge bases holds the id ${JSON.stringify(base.id)}, not a positive whole number; ${KEPT}`);
		listed.push({ id, base, files: await listFiles(ctx, id, sending) });
	}
	return listed;
}
