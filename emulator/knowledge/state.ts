/**
 * In-memory knowledge bases and files. File contents live on disk under
 * config.dataDir so uploads and downloads stream instead of sitting in memory.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MIME, minimalPdf, PARTNER_TARGET, sampleCsv, sampleDocx, sampleHtml, sampleXml } from './sampleFiles';
import type { EmulatorConfig } from '../types';

export type KnowledgeSource = 'internal' | 'external';
export type Language = 'en' | 'th';
export type FileStatus = 'active' | 'deleting';

export interface KnowledgeBaseRecord {
	id: number;
	name: string;
	source: KnowledgeSource;
	target: string;
	supportedLanguages: Language[];
	enableSemanticSearch: boolean;
	/** Request-only flag, kept to show what the client asked for. */
	createFulfillment: boolean;
	/** Bumped whenever the base's files change; files report it as kmVersion. */
	kmVersion: number;
	createdAt: string;
	updatedAt: string;
}

export interface KnowledgeFileRecord {
	id: number;
	knowledgeId: number;
	name: string;
	status: FileStatus;
	path: string;
	combined: string;
	storageContainerName: string;
	meta: { mimetype: string; originalName: string; size: number };
	/** sha256 hex of the stored content (not part of the response). */
	sha256: string;
	/** Absolute path of the content on disk. */
	contentPath: string;
	/** False for content shared between generated files (never unlinked per file). */
	ownsContent: boolean;
	createdAt: string;
	updatedAt: string;
}

/** Response form of a knowledge base (createFulfillment is request-only, kmVersion belongs to files). */
export function baseView(kb: KnowledgeBaseRecord) {
	return {
		id: kb.id,
		name: kb.name,
		source: kb.source,
		target: kb.target,
		supportedLanguages: [...kb.supportedLanguages],
		enableSemanticSearch: kb.enableSemanticSearch,
		createdAt: kb.createdAt,
		updatedAt: kb.updatedAt,
	};
}

export function fileView(file: KnowledgeFileRecord, kb: KnowledgeBaseRecord) {
	return {
		id: file.id,
		name: file.name,
		status: file.status,
		path: file.path,
		combined: file.combined,
		storageContainerName: file.storageContainerName,
		meta: { ...file.meta },
		kmVersion: String(kb.kmVersion),
		knowledge: baseView(kb),
		createdAt: file.createdAt,
		updatedAt: file.updatedAt,
	};
}

export const STORAGE_CONTAINER = 'knowledge-files';

/** Generated storage name: unique, keeps the extension like real blob stores do. */
export function storageName(originalName: string): string {
	const ext = path.extname(originalName).toLowerCase().replace(/[^.a-z0-9]/g, '').slice(0, 10);
	return `${randomUUID()}${ext}`;
}

export interface NewBase {
	name: string;
	source?: KnowledgeSource;
	target?: string;
	supportedLanguages?: Language[];
	createFulfillment?: boolean;
	enableSemanticSearch?: boolean;
	createdAt?: string;
}

export interface NewFile {
	originalName: string;
	mimetype: string;
	content: Buffer | string;
	status?: FileStatus;
	createdAt?: string;
}

export interface AddFilesOptions {
	mimetype?: string;
	/** Content shared by all generated files (written once). */
	content?: Buffer | string;
	status?: FileStatus;
	/** originalName is `${namePrefix}${i}${ext}`. */
	namePrefix?: string;
	ext?: string;
}

export class KnowledgeState {
	readonly bases = new Map<number, KnowledgeBaseRecord>();
	readonly files = new Map<number, KnowledgeFileRecord>();
	nextBaseId = 1;
	nextFileId = 1;

	constructor(private readonly config: EmulatorConfig) {
		this.reset();
	}

	/** Bumped by reset(): a download still streaming from before a reset keeps its file. */
	private generation = 0;

	/** Where contents live; under dataDir so close() can remove everything at once. */
	get contentDir(): string {
		return path.join(this.config.dataDir, `knowledge-${this.generation}`);
	}

	/** Scratch directory for uploads in progress (same filesystem, so rename is atomic). */
	get uploadDir(): string {
		return path.join(this.config.dataDir, 'uploads');
	}

	/** Drops everything and re-seeds. */
	reset(): void {
		this.bases.clear();
		this.files.clear();
		this.nextBaseId = 1;
		this.nextFileId = 1;
		this.generation++;
		fs.mkdirSync(this.contentDir, { recursive: true });
		fs.mkdirSync(this.uploadDir, { recursive: true });
		seedKnowledge(this);
	}

	createBase(input: NewBase): KnowledgeBaseRecord {
		const now = input.createdAt ?? new Date().toISOString();
		const kb: KnowledgeBaseRecord = {
			id: this.nextBaseId++,
			name: input.name,
			source: input.source ?? 'internal',
			target: input.target ?? '',
			supportedLanguages: input.supportedLanguages ?? ['en'],
			enableSemanticSearch: input.enableSemanticSearch ?? false,
			createFulfillment: input.createFulfillment ?? true,
			kmVersion: 1,
			createdAt: now,
			updatedAt: now,
		};
		this.bases.set(kb.id, kb);
		return kb;
	}

	/** Creates n bases named `${prefix} N` (for paging tests). */
	addKnowledgeBases(n: number, overrides: Partial<NewBase> & { namePrefix?: string } = {}): KnowledgeBaseRecord[] {
		const { namePrefix = 'Generated knowledge base', ...rest } = overrides;
		const out: KnowledgeBaseRecord[] = [];
		for (let i = 0; i < n; i++) out.push(this.createBase({ ...rest, name: `${namePrefix} ${this.nextBaseId}` }));
		return out;
	}

	private newContentPath(fileId: number): string {
		return path.join(this.contentDir, `${fileId}-${randomBytes(6).toString('hex')}.bin`);
	}

	private record(kbId: number, meta: KnowledgeFileRecord['meta'], contentPath: string, sha256: string, opts: { status?: FileStatus; createdAt?: string; ownsContent: boolean; id?: number }): KnowledgeFileRecord {
		const kb = this.requireBase(kbId);
		const id = opts.id ?? this.nextFileId++;
		const name = storageName(meta.originalName);
		const now = opts.createdAt ?? new Date().toISOString();
		const file: KnowledgeFileRecord = {
			id,
			knowledgeId: kb.id,
			name,
			status: opts.status ?? 'active',
			path: `knowledge/${kb.id}/${name}`,
			combined: `knowledge/${kb.id}/combined/${name}.txt`,
			storageContainerName: STORAGE_CONTAINER,
			meta,
			sha256,
			contentPath,
			ownsContent: opts.ownsContent,
			createdAt: now,
			updatedAt: now,
		};
		this.files.set(id, file);
		return file;
	}

	/** Adds one file with the given content (written to disk now). */
	addFile(kbId: number, input: NewFile): KnowledgeFileRecord {
		this.requireBase(kbId);
		const id = this.nextFileId++;
		const content = Buffer.isBuffer(input.content) ? input.content : Buffer.from(input.content, 'utf8');
		const contentPath = this.newContentPath(id);
		fs.writeFileSync(contentPath, content);
		const sha256 = createHash('sha256').update(content).digest('hex');
		const meta = { mimetype: input.mimetype, originalName: input.originalName, size: content.length };
		return this.record(kbId, meta, contentPath, sha256, { id, status: input.status, createdAt: input.createdAt, ownsContent: true });
	}

	/** Adds n files cheaply: they all point at one content blob on disk. */
	addFiles(kbId: number, n: number, opts: AddFilesOptions = {}): KnowledgeFileRecord[] {
		this.requireBase(kbId);
		const content = opts.content === undefined ? Buffer.from('id,question,answer\n1,hello,world\n') : Buffer.isBuffer(opts.content) ? opts.content : Buffer.from(opts.content, 'utf8');
		const sharedPath = path.join(this.contentDir, `shared-${randomBytes(6).toString('hex')}.bin`);
		fs.writeFileSync(sharedPath, content);
		const sha256 = createHash('sha256').update(content).digest('hex');
		const mimetype = opts.mimetype ?? 'text/csv';
		const ext = opts.ext ?? (mimetype === 'text/csv' ? '.csv' : '');
		const out: KnowledgeFileRecord[] = [];
		for (let i = 0; i < n; i++) {
			const meta = { mimetype, originalName: `${opts.namePrefix ?? 'generated-'}${this.nextFileId}${ext}`, size: content.length };
			out.push(this.record(kbId, meta, sharedPath, sha256, { status: opts.status, ownsContent: false }));
		}
		return out;
	}

	requireBase(kbId: number): KnowledgeBaseRecord {
		const kb = this.bases.get(kbId);
		if (!kb) throw new Error(`knowledge base ${kbId} does not exist`);
		return kb;
	}

	/** Files of a base, by id ascending. */
	filesOf(kbId: number): KnowledgeFileRecord[] {
		return [...this.files.values()].filter((f) => f.knowledgeId === kbId).sort((a, b) => a.id - b.id);
	}

	/** Bases by id ascending. */
	listBases(): KnowledgeBaseRecord[] {
		return [...this.bases.values()].sort((a, b) => a.id - b.id);
	}

	private dropContent(file: KnowledgeFileRecord): void {
		if (file.ownsContent) fs.rmSync(file.contentPath, { force: true });
	}

	deleteFile(fileId: number): KnowledgeFileRecord | undefined {
		const file = this.files.get(fileId);
		if (!file) return undefined;
		this.files.delete(fileId);
		this.dropContent(file);
		const kb = this.bases.get(file.knowledgeId);
		if (kb) kb.kmVersion += 1;
		return file;
	}

	deleteBase(kbId: number): KnowledgeBaseRecord | undefined {
		const kb = this.bases.get(kbId);
		if (!kb) return undefined;
		for (const f of this.filesOf(kbId)) {
			this.files.delete(f.id);
			this.dropContent(f);
		}
		this.bases.delete(kbId);
		return kb;
	}

	/** A file's status as another user of the service would change it (the base's version moves, as for any file change). */
	setStatus(fileId: number, status: FileStatus): KnowledgeFileRecord {
		const file = this.files.get(fileId);
		if (!file) throw new Error(`knowledge file ${fileId} does not exist`);
		file.status = status;
		file.updatedAt = laterThan(file.updatedAt);
		const kb = this.bases.get(file.knowledgeId);
		if (kb) kb.kmVersion += 1;
		return file;
	}

	/** Replaces a file's content with `content` (written to disk first), as an upload through the API would. */
	replaceFile(fileId: number, input: { originalName?: string; mimetype?: string; content: Buffer | string }): KnowledgeFileRecord {
		const file = this.files.get(fileId);
		if (!file) throw new Error(`knowledge file ${fileId} does not exist`);
		const content = Buffer.isBuffer(input.content) ? input.content : Buffer.from(input.content, 'utf8');
		const tmpPath = path.join(this.uploadDir, randomUUID());
		fs.writeFileSync(tmpPath, content);
		const meta = { mimetype: input.mimetype ?? file.meta.mimetype, originalName: input.originalName ?? file.meta.originalName, size: content.length };
		return this.replaceContent(fileId, tmpPath, meta, createHash('sha256').update(content).digest('hex'));
	}

	/** Swaps in an uploaded file (already on disk at tmpPath) as the file's new content. */
	replaceContent(fileId: number, tmpPath: string, meta: KnowledgeFileRecord['meta'], sha256: string): KnowledgeFileRecord {
		const file = this.files.get(fileId);
		if (!file) throw new Error(`knowledge file ${fileId} does not exist`);
		const next = this.newContentPath(fileId);
		fs.renameSync(tmpPath, next);
		this.dropContent(file);
		file.contentPath = next;
		file.ownsContent = true;
		file.meta = meta;
		file.sha256 = sha256;
		file.name = storageName(meta.originalName);
		file.path = `knowledge/${file.knowledgeId}/${file.name}`;
		file.combined = `knowledge/${file.knowledgeId}/combined/${file.name}.txt`;
		file.status = 'active';
		file.updatedAt = laterThan(file.updatedAt);
		const kb = this.bases.get(file.knowledgeId);
		if (kb) kb.kmVersion += 1;
		return file;
	}
}

/** Now, or strictly later than `before` when the clock has not moved past it (two changes in one millisecond). */
function laterThan(before: string): string {
	return new Date(Math.max(Date.now(), Date.parse(before) + 1)).toISOString();
}

/** Fixed seed timestamps so answers are stable across runs. */
function at(day: number, hour = 9): string {
	return new Date(Date.UTC(2024, 0, day, hour, 0, 0)).toISOString();
}

/**
 * Seeds: 1 "Employee Handbook" (internal, en+th, 6 files, one of them deleting),
 * 2 "Product FAQ" (internal, en, 2 files), 3 "Partner Search" (external, no files).
 */
function seedKnowledge(state: KnowledgeState): void {
	const handbook = state.createBase({ name: 'Employee Handbook', source: 'internal', supportedLanguages: ['en', 'th'], createdAt: at(10) });
	const faq = state.createBase({ name: 'Product FAQ', source: 'internal', supportedLanguages: ['en'], createdAt: at(11) });
	state.createBase({ name: 'Partner Search', source: 'external', target: PARTNER_TARGET, supportedLanguages: ['en'], createdAt: at(12) });

	const h = handbook.id;
	state.addFile(h, { originalName: 'handbook.pdf', mimetype: MIME.pdf, content: minimalPdf('Employee Handbook'), createdAt: at(10, 10) });
	state.addFile(h, { originalName: 'leave-policy.csv', mimetype: MIME.csv, content: sampleCsv(), createdAt: at(10, 11) });
	state.addFile(h, { originalName: 'benefits.html', mimetype: MIME.html, content: sampleHtml(), createdAt: at(10, 12) });
	state.addFile(h, { originalName: 'policies.xml', mimetype: MIME.xml, content: sampleXml(), createdAt: at(10, 13) });
	state.addFile(h, { originalName: 'code-of-conduct.docx', mimetype: MIME.docx, content: sampleDocx(), createdAt: at(10, 14) });
	state.addFile(h, { originalName: 'old-travel-policy.pdf', mimetype: MIME.pdf, content: minimalPdf('Old travel policy'), status: 'deleting', createdAt: at(10, 15) });

	state.addFile(faq.id, { originalName: 'faq.csv', mimetype: MIME.csv, content: Buffer.from('question,answer\nDoes it sync offline?,Yes\n'), createdAt: at(11, 10) });
	state.addFile(faq.id, { originalName: 'Product FAQ – ภาษาไทย.pdf', mimetype: MIME.pdf, content: minimalPdf('Product FAQ'), createdAt: at(11, 11) });
}
