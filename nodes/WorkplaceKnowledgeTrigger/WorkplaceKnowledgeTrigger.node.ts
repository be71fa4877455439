import type { IDataObject, INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { knowledgeBaseLocator } from '../../shared/descriptions';
import { fileItem, fileOutput } from '../../shared/knowledgeFile/file';
import { downloadFile } from '../../shared/knowledgeFile/fileContent';
import { credentialTest } from '../../shared/methods/credentialTest';
import { searchKnowledgeBases } from '../../shared/methods/listSearch';
import { positiveId } from '../../shared/positiveId';
import { invalidSetting } from '../../shared/invalid';
import { maxDownloadBytes, maxDownloadSizeOption } from '../../shared/maxDownloadSize';
import { hasOwnEntry, nameN8nDrops } from '../../shared/ownEntry';
import { numberValue } from '../../shared/numberValue';
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS, type SendOptions } from '../../shared/transport';
import { BASE_EVENTS, compare, FILE_EVENTS, readRecordedState, recordState, type Change, type ChangeEvent, type ListedBase } from './changes';
import { listAll, listOne } from './listing';

/** Where the recorded state lives in the node's static data. */
const STATE_KEY = 'knowledge';

const EVENT_NAMES: Record<ChangeEvent, string> = {
	fileAdded: 'File Added',
	fileReplaced: 'File Replaced',
	fileRemoved: 'File Removed',
	fileStatusChanged: 'File Status Changed',
	knowledgeBaseAdded: 'Knowledge Base Added',
	knowledgeBaseRemoved: 'Knowledge Base Removed',
};

function watchedBase(ctx: IPollFunctions): number | undefined {
	if (ctx.getNodeParameter('watch', 'knowledgeBase') === 'all') return undefined;
	const raw = ctx.getNodeParameter('knowledgeId', '', { extractValue: true });
	const id = positiveId(raw);
	if (id === undefined) {
		throw invalidSetting(ctx, 'Knowledge Base', `expected a knowledge base ID (a positive whole number), got ${JSON.stringify(raw)}`);
	}
	return id;
}

/** The order of a manual run's samples: one per chosen event, as the Events list names them. */
const SAMPLE_ORDER: readonly ChangeEvent[] = ['fileAdded', 'fileReplaced', 'fileRemoved', 'fileStatusChanged', 'knowledgeBaseAdded', 'knowledgeBaseRemoved'];

/** The newest file of a listing (latest `updatedAt`, else `createdAt`) and the base it is in. */
function newestFile(listed: ListedBase[]): { base: ListedBase; file: IDataObject } | undefined {
	let newest: { base: ListedBase; file: IDataObject } | undefined;
	let newestTime = -Infinity;
	for (const base of listed) {
		for (const file of base.files) {
			const time = Date.parse(String(file.updatedAt ?? file.createdAt ?? ''));
			const at = Number.isNaN(time) ? -Infinity : time;
			if (!newest || at > newestTime) {
				newest = { base, file };
				newestTime = at;
			}
		}
	}
	return newest;
}

/** What a poll does with the files it reports: download them (Include File Content) into `property`, at most `maxBytes` each. */
interface Content {
	include: boolean;
	property: string;
	maxBytes: number;
}

/** The longest Timeout the option takes, as the Workplace node's: an hour. */
const MAX_TIMEOUT_MS = 3_600_000;

/** The poll's requests: the default retries, and the Timeout option (each request's whole answer within it). */
function pollSending(ctx: IPollFunctions, options: IDataObject): SendOptions {
	const raw = options.timeout;
	if (raw === undefined || raw === null || raw === '') return { settings: { policy: DEFAULT_RETRY_POLICY, timeoutMs: DEFAULT_TIMEOUT_MS } };
	const ms = numberValue(raw);
	if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 1000 || ms > MAX_TIMEOUT_MS) {
		throw invalidSetting(ctx, 'Timeout', `must be a number of ms between 1000 and ${MAX_TIMEOUT_MS} (got ${JSON.stringify(raw)})`);
	}
	return { settings: { policy: DEFAULT_RETRY_POLICY, timeoutMs: Math.round(ms) } };
}

/** Include File Content, Put Output File in Field and Max Download Size, checked before anything is sent. */
function contentOptions(ctx: IPollFunctions, options: IDataObject): Content {
	const property = typeof options.binaryPropertyName === 'string' && options.binaryPropertyName.trim() !== '' ? options.binaryPropertyName : 'data';
	const dropped = nameN8nDrops(property);
	if (dropped) throw invalidSetting(ctx, 'Put Output File in Field', dropped);
	const maxBytes = maxDownloadBytes(options[maxDownloadSizeOption.name]);
	if (typeof maxBytes !== 'number') throw invalidSetting(ctx, maxDownloadSizeOption.displayName, maxBytes.problem);
	return { include: options.includeContent === true, property, maxBytes };
}

/**
 * A manual run's sample of one event: the change `compare` reports when the
 * listing is set against a recorded state made for it (without the file or base
 * for an addition, with it for a removal, and with the file's compared fields
 * unknown for a replacement or a status change), so a sample has every field a
 * real item of that event has; `changes` then says `before: null`.
 */
function sampleChange(listed: ListedBase[], event: ChangeEvent, scope: string): Change | undefined {
	const newest = newestFile(listed);
	const base = newest?.base ?? listed[listed.length - 1];
	if (!base) return undefined;
	const fileId = newest?.file.id;
	const without = (l: ListedBase[]) => l.map((b) => (b === base ? { ...b, files: b.files.filter((f) => f.id !== fileId) } : b));
	const unknown = (l: ListedBase[]) => l.map((b) => (b === base ? { ...b, files: b.files.map((f) => (f.id === fileId ? { id: f.id } : f)) } : b));
	const withoutBase = (l: ListedBase[]) => l.filter((b) => b !== base);
	let before: ListedBase[];
	let now: ListedBase[] = listed;
	if (event === 'knowledgeBaseAdded') before = withoutBase(listed);
	else if (event === 'knowledgeBaseRemoved') [before, now] = [listed, withoutBase(listed)];
	else if (!newest) return undefined;
	else if (event === 'fileAdded') before = without(listed);
	else if (event === 'fileRemoved') [before, now] = [listed, without(listed)];
	else before = unknown(listed);
	const bases = event === 'knowledgeBaseAdded' || event === 'knowledgeBaseRemoved';
	return compare(recordState(scope, before), now, bases).find(
		(change) => change.event === event && (bases ? change.knowledgeBaseId === base.id : String(change.file?.id) === String(fileId)),
	);
}

/**
 * One change as an item: `event`, then the file item (shared/knowledgeFile/file.ts:
 * the same fields as the Workplace node's Knowledge File items; raw, also the
 * service's fields), then `changes` for a replacement or a status change. A
 * knowledge base event names the base (`knowledgeId`, `knowledgeName`; raw, also
 * `knowledgeBase` as the service listed it).
 */
async function toItem(
	ctx: IPollFunctions,
	change: Change,
	content: Content,
	simplify: boolean,
	sending: SendOptions,
): Promise<INodeExecutionData> {
	const json: IDataObject = { event: change.event };
	if (change.file) {
		Object.assign(json, simplify ? fileItem(change.file, change.knowledgeBase) : fileOutput(change.file, change.knowledgeBase));
		// A removed file's content is no longer the language model's, whatever its last status was.
		if (change.event === 'fileRemoved') json.usedByLanguageModel = false;
	} else {
		json.knowledgeId = change.knowledgeBaseId;
		json.knowledgeName = change.knowledgeBase.name ?? null;
		if (!simplify) json.knowledgeBase = change.knowledgeBase;
	}
	if (change.changes) json.changes = change.changes;
	const item: INodeExecutionData = { json };
	if (content.include && change.file && (change.event === 'fileAdded' || change.event === 'fileReplaced')) {
		const { binary } = await downloadFile(ctx, change.knowledgeBaseId, Number(change.file.id), content.maxBytes, sending);
		item.binary = { [content.property]: binary };
	}
	return item;
}

/**
 * Polls knowledge bases and reports what changed since the last poll: files
 * added, replaced, removed or changing status, and (watching all) knowledge
 * bases added or removed. One item per change, all in one execution.
 *
 * The first poll records what exists and reports nothing. A poll whose listing
 * is not complete fails before anything changes: nothing is reported and the
 * recorded state stays, so the next good poll reports what happened meanwhile.
 * A manual run reports a sample of each chosen event (the newest file, or its
 * knowledge base) and leaves the state alone.
 */
export class WorkplaceKnowledgeTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Workplace Knowledge Trigger',
		name: 'workplaceKnowledgeTrigger',
		icon: { light: 'file:../Workplace/workplace.svg', dark: 'file:../Workplace/workplace.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["watch"] === "all" ? "All knowledge bases" : "One knowledge base"}}',
		description: 'Starts a workflow when files in a knowledge base are added, replaced, removed or change status',
		defaults: { name: 'Workplace Knowledge Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'workplaceKnowledgeBaseApi', required: true, testedBy: 'workplaceKnowledgeBaseApiTest' }],
		properties: [
			{
				displayName: 'Watch',
				name: 'watch',
				type: 'options',
				default: 'knowledgeBase',
				options: [
					{ name: 'One Knowledge Base', value: 'knowledgeBase', description: 'The files of one knowledge base' },
					{ name: 'All Knowledge Bases', value: 'all', description: 'Every knowledge base and its files, and bases added or removed' },
				],
				description: 'What to poll for changes',
			},
			{ ...knowledgeBaseLocator, displayOptions: { show: { watch: ['knowledgeBase'] } } },
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['fileAdded', 'fileReplaced', 'fileRemoved', 'fileStatusChanged'],
				options: [
					{ name: 'File Added', value: 'fileAdded', description: 'A file appeared in the list' },
					{ name: 'File Removed', value: 'fileRemoved', description: 'A file is gone from the list' },
					{ name: 'File Replaced', value: 'fileReplaced', description: 'A file\'s update time, size or name changed' },
					{ name: 'File Status Changed', value: 'fileStatusChanged', description: 'A file\'s status changed, e.g. active → deleting' },
					{ name: 'Knowledge Base Added', value: 'knowledgeBaseAdded', description: 'Watching all: a knowledge base appeared' },
					{ name: 'Knowledge Base Removed', value: 'knowledgeBaseRemoved', description: 'Watching all: a knowledge base is gone' },
				],
				description: 'The changes that start the workflow, one item each',
				// A hint, not a notice: it explains the trigger, it says nothing about a run's data.
				hint: 'The first poll after activation records what exists and starts nothing. A poll whose listing fails or comes back incomplete reports nothing; the next one catches up.',
			},
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: true,
				description:
					'Whether to return only the file\'s fields a person looks for first, named as in the Workplace node\'s Knowledge File items; off, each item also carries the service\'s whole answer for the file (its storage name, path, meta, knowledge base)',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Include File Content',
						name: 'includeContent',
						type: 'boolean',
						default: false,
						description: 'Whether to download added and replaced files into a binary field (streamed, one request per file)',
					},
					{ ...maxDownloadSizeOption, description: `With Include File Content: ${maxDownloadSizeOption.description ?? ''}` },
					{
						displayName: 'Put Output File in Field',
						name: 'binaryPropertyName',
						type: 'string',
						default: 'data',
						description: 'The name of the output binary field for the file\'s content',
					},
					{
						displayName: 'Timeout',
						name: 'timeout',
						type: 'number',
						typeOptions: { minValue: 1000, maxValue: MAX_TIMEOUT_MS },
						default: DEFAULT_TIMEOUT_MS,
						description: 'Time in ms each request of a poll may take, its whole answer included (a file\'s content gets a second more for every 64 KB that arrives)',
					},
				],
			},
		],
	};

	methods = { listSearch: { searchKnowledgeBases }, credentialTest };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const knowledgeId = watchedBase(this);
		const watchesAll = knowledgeId === undefined;
		const wanted = new Set((this.getNodeParameter('events', []) as string[]).filter((e): e is ChangeEvent => hasOwnEntry(EVENT_NAMES, e)));
		if (!watchesAll) for (const event of BASE_EVENTS) wanted.delete(event);
		if (wanted.size === 0) {
			throw invalidSetting(this, 'Events', watchesAll ? 'choose at least one' : `choose at least one of ${FILE_EVENTS.map((e) => EVENT_NAMES[e]).join(', ')} (knowledge base events need Watch: All Knowledge Bases)`);
		}
		const options = this.getNodeParameter('options', {}) as IDataObject;
		const content = contentOptions(this, options);
		const sending = pollSending(this, options);
		const simplify = this.getNodeParameter('simplify', true) !== false;
		const scope = watchesAll ? 'all' : `knowledgeBase:${knowledgeId}`;

		// A listing that is not complete throws here, before the state is read or written.
		const listed = watchesAll ? await listAll(this, sending) : await listOne(this, knowledgeId, sending);

		if (this.getMode() === 'manual') {
			// One sample per chosen event, from the newest file (or its base), each as a real item of that event.
			const samples: INodeExecutionData[] = [];
			for (const event of SAMPLE_ORDER.filter((e) => wanted.has(e))) {
				const change = sampleChange(listed, event, scope);
				if (!change) continue;
				const item = await toItem(this, change, content, simplify, sending);
				// First, so the editor's output shows at once that this is a sample.
				item.json = { sample: true, ...item.json };
				samples.push(item);
			}
			return samples.length > 0 ? [samples] : null;
		}

		const staticData = this.getWorkflowStaticData('node');
		const before = readRecordedState(staticData[STATE_KEY], scope);
		const after = recordState(scope, listed);
		if (!before) {
			staticData[STATE_KEY] = after as unknown as IDataObject;
			return null;
		}
		const changes = compare(before, listed, watchesAll).filter((change) => wanted.has(change.event));
		// Items (and their downloads) first: a failure here also leaves the state as it was.
		const items: INodeExecutionData[] = [];
		for (const change of changes) items.push(await toItem(this, change, content, simplify, sending));
		staticData[STATE_KEY] = after as unknown as IDataObject;
		return items.length > 0 ? [items] : null;
	}
}
