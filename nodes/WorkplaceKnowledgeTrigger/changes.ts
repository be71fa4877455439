/**
 * What changed between two complete listings of knowledge bases and their
 * files, as one pure function of the recorded state and the new listing. The
 * recorded state keeps, per file, only the fields compared: the service's
 * `updatedAt`, the size and original name from `meta`, and the status.
 *
 * Ids come from the service, so the state follows the rule for tables keyed by
 * outside text (shared/ownEntry.ts): it is stored as lists of `[id, …]` pairs
 * and compared through Maps, so an id such as `__proto__` or `constructor` is
 * an id like any other.
 */
import type { IDataObject } from 'n8n-workflow';

import { entriesOf } from '../../shared/ownEntry';

export const FILE_EVENTS = ['fileAdded', 'fileReplaced', 'fileRemoved', 'fileStatusChanged'] as const;
export const BASE_EVENTS = ['knowledgeBaseAdded', 'knowledgeBaseRemoved'] as const;
export type ChangeEvent = (typeof FILE_EVENTS)[number] | (typeof BASE_EVENTS)[number];

/** A file as recorded: [updatedAt, size, originalName, status] (a tuple keeps 10,000 of them small). */
export type RecordedFile = [updatedAt: string | null, size: number | null, originalName: string | null, status: string | null];

export interface RecordedBase {
	name: string | null;
	/** [file id, the file as recorded], in listing order. */
	files: Array<[string, RecordedFile]>;
}

export interface RecordedState {
	/** What was watched: `all`, or `knowledgeBase:<id>`; another scope starts afresh. */
	scope: string;
	/** [knowledge base id, the base as recorded], in listing order. */
	bases: Array<[string, RecordedBase]>;
}

/** One knowledge base as a complete listing gave it. */
export interface ListedBase {
	id: number;
	/** The base as the service returned it (all knowledge bases), or as the files carry it. */
	base: IDataObject;
	files: IDataObject[];
}

export interface Change {
	event: ChangeEvent;
	knowledgeBaseId: number;
	knowledgeBase: IDataObject;
	/** The file as listed (added, replaced, status changed), or as last recorded (removed). */
	file?: IDataObject;
	/** Field → before and after, for replaced and status changed. */
	changes?: Record<string, { before: unknown; after: unknown }>;
}

const FIELDS = ['updatedAt', 'size', 'originalName', 'status'] as const;

function textOrNull(value: unknown): string | null {
	return typeof value === 'string' ? value : null;
}

export function recordFile(file: IDataObject): RecordedFile {
	const meta = file.meta !== null && typeof file.meta === 'object' && !Array.isArray(file.meta) ? (file.meta as IDataObject) : {};
	const size = typeof meta.size === 'number' && Number.isFinite(meta.size) ? meta.size : null;
	return [textOrNull(file.updatedAt), size, textOrNull(meta.originalName), textOrNull(file.status)];
}

export function recordState(scope: string, listed: ListedBase[]): RecordedState {
	return {
		scope,
		bases: listed.map(({ id, base, files }) => [String(id), { name: textOrNull(base.name), files: files.map((file) => [String(file.id), recordFile(file)]) }]),
	};
}

/** An id as the listing gave it: the service's ids are numbers; anything else stays the text it was. */
function idOf(key: string): number | string {
	return /^\d{1,15}$/.test(key) ? Number(key) : key;
}

/** A removed file as the state remembers it, in the service's shape. */
function rememberedFile(id: string, [updatedAt, size, originalName, status]: RecordedFile): IDataObject {
	return { id: idOf(id), status, meta: { originalName, size }, updatedAt };
}

function rememberedBase(id: string, base: RecordedBase): IDataObject {
	return { id: idOf(id), name: base.name };
}

/**
 * The changes from `before` to the listing, in listing order (removals last).
 * `watchesAll` decides whether bases appearing and disappearing are events; a
 * removed base reports itself, not each of its files.
 *
 * A file whose status changed is "status changed"; it is also "replaced" when
 * its size or name changed (a changed `updatedAt` alone goes with the status change).
 */
export function compare(before: RecordedState, listed: ListedBase[], watchesAll: boolean): Change[] {
	const changes: Change[] = [];
	const seen = new Set<string>();
	const recordedBases = new Map(before.bases);
	for (const { id, base, files } of listed) {
		const key = String(id);
		seen.add(key);
		const recorded = recordedBases.get(key);
		if (!recorded && watchesAll) changes.push({ event: 'knowledgeBaseAdded', knowledgeBaseId: id, knowledgeBase: base });
		const known = new Map(recorded?.files ?? []);
		const present = new Set<string>();
		for (const file of files) {
			const fileKey = String(file.id);
			present.add(fileKey);
			const old = known.get(fileKey);
			if (!old) {
				changes.push({ event: 'fileAdded', knowledgeBaseId: id, knowledgeBase: base, file });
				continue;
			}
			const now = recordFile(file);
			const differing = FIELDS.map((field, n) => ({ field, before: old[n], after: now[n] })).filter(({ before, after }) => before !== after);
			if (differing.length === 0) continue;
			const changed = differing.map(({ field }) => field);
			const diff = Object.fromEntries(differing.map(({ field, before, after }) => [field, { before, after }]));
			const statusChanged = changed.includes('status');
			const contentChanged = changed.includes('size') || changed.includes('originalName') || (!statusChanged && changed.includes('updatedAt'));
			if (contentChanged) changes.push({ event: 'fileReplaced', knowledgeBaseId: id, knowledgeBase: base, file, changes: diff });
			if (statusChanged) changes.push({ event: 'fileStatusChanged', knowledgeBaseId: id, knowledgeBase: base, file, changes: diff });
		}
		for (const [fileKey, old] of known) {
			if (!present.has(fileKey)) {
				changes.push({ event: 'fileRemoved', knowledgeBaseId: id, knowledgeBase: base, file: rememberedFile(fileKey, old) });
			}
		}
	}
	if (watchesAll) {
		for (const [key, recorded] of recordedBases) {
			if (!seen.has(key)) {
				changes.push({ event: 'knowledgeBaseRemoved', knowledgeBaseId: Number(key), knowledgeBase: rememberedBase(key, recorded) });
			}
		}
	}
	return changes;
}

/**
 * The recorded state in static data, or undefined when there is none for this
 * scope (a first poll). A state kept as objects keyed by ids (before ids
 * followed the rule for outside keys) is read by its own entries.
 */
export function readRecordedState(stored: unknown, scope: string): RecordedState | undefined {
	if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return undefined;
	const state = stored as { scope?: unknown; bases?: unknown };
	if (state.scope !== scope) return undefined;
	const bases = entriesOf(state.bases);
	if (!bases) return undefined;
	if (Array.isArray(state.bases) && bases.every(([, base]) => Array.isArray((base as RecordedBase | undefined)?.files))) return stored as RecordedState;
	const read: Array<[string, RecordedBase]> = [];
	for (const [id, base] of bases) {
		const recorded = (base ?? {}) as { name?: unknown; files?: unknown };
		const files = entriesOf(recorded.files);
		if (!files) return undefined;
		read.push([id, { name: textOrNull(recorded.name), files: files.filter((pair): pair is [string, RecordedFile] => Array.isArray(pair[1])) }]);
	}
	return { scope, bases: read };
}
