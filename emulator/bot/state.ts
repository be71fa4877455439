/**
 * The bot API's state, all of it: the directory the bot sees (users, groups,
 * their topics), the access tokens it was issued, and, in MessagingState, what
 * it said and to whom: the chats a message can go to (groups, their topics, a
 * user's direct chat), the record of every message the emulator accepted, and
 * the reply tokens it handed out inside delivered events.
 */
import { createHash, randomBytes } from 'node:crypto';
import { objectId } from '../common/helpers';
import type { EmulatorConfig } from '../types';
import { PictureStore } from './pictures';
import { BOT_USER_ID, type BotGroup, type BotTopic, type BotUser, seedBotGroups, seedBotTopics, seedBotUsers } from './seed';

export interface BotToken {
	clientId: string;
	scopes: string[];
	/** Epoch milliseconds; the token is expired from this instant on. */
	expiresAt: number;
}

export interface BotState {
	tokens: Map<string, BotToken>;
	/** Every POST /oauth/token, failed ones included (lets tests count refreshes). */
	tokenRequests: number;
	/** Marks every token issued so far as expired (the next bot call answers 401). */
	expireAllTokens(): void;
	users: Map<string, BotUser>;
	groups: Map<string, BotGroup>;
	/** Group topics by _id. */
	topics: Map<string, BotTopic>;
	botUserId: string;
}

export function createBotState(): BotState {
	const state: BotState = {
		tokens: new Map(),
		tokenRequests: 0,
		// Reads state.tokens at call time, so it still works after the maps are swapped in place.
		expireAllTokens() {
			for (const token of state.tokens.values()) token.expiresAt = 0;
		},
		users: seedBotUsers(),
		groups: seedBotGroups(),
		topics: seedBotTopics(),
		botUserId: BOT_USER_ID,
	};
	return state;
}

/** The directory part of the bot state, read at call time (a reset swaps its maps in place). */
export type ChatDirectory = Pick<BotState, 'users' | 'groups' | 'topics' | 'botUserId'>;

/** A chat: a group's main chat (tid null), one of its topics, or a user's direct chat (uid set). */
export interface ChatTarget {
	gid: string;
	tid: string | null;
	/** Set for a direct chat: the user on the other side. */
	uid?: string;
}

export interface RecordedFile {
	/** The multipart part name. */
	part: string;
	filename: string;
	contentType: string;
	size: number;
	sha256: string;
}

/** One message (or one v2 call's messages) the emulator accepted, in arrival order. */
export interface MessageRecord {
	seq: number;
	/** ISO time of acceptance. */
	time: string;
	/** e.g. `POST /bot/v1/group/message`. */
	route: string;
	target: ChatTarget & { replyToken?: string };
	/** Id the v1 send answer carried. */
	messageId: string;
	/** v2: the message objects as sent. */
	messages?: unknown[];
	/** v1 text (push, reply, or the quick-reply prompt). */
	text?: string;
	caption?: string;
	/** v1 quick reply: the `meta` object as sent. */
	meta?: unknown;
	file?: RecordedFile;
}

/** A person's tap on a recorded message's button (POST /__emulator/tap), shown in the chat after it. */
export interface TapRecord {
	seq: number;
	time: string;
	/** The tapped message's seq. */
	tapped: number;
	/** Its chat, so the tap shows where the message is. */
	target: ChatTarget;
	uid: string;
	button: { id: string; label: string };
	action: string;
	/** What came of it, in short, e.g. `GET 200, POST 200` or `webhook 200`. */
	outcome: string;
	/** A postback's text, shown in the chat as if the person had typed it. */
	text?: string;
}

export interface ReplyToken {
	token: string;
	/** The chat of the event that carried it: a reply goes there. */
	target: ChatTarget;
	eventType: string;
	expiresAt: number;
	usedAt?: number;
}

export type ChatLookup = { target: ChatTarget } | { status: number; code: string; message: string };

/** uid = a user's direct chat; gid (and tid, '' for the main chat) = a group or topic; nothing = every chat. */
export interface ChatFilter {
	uid?: string;
	gid?: string;
	tid?: string;
}

function inChat(target: ChatTarget, filter: ChatFilter): boolean {
	return (
		(filter.uid === undefined || target.uid === filter.uid) &&
		(filter.gid === undefined || target.gid === filter.gid) &&
		(filter.tid === undefined || (target.tid ?? '') === filter.tid)
	);
}

const hex24 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 24);

/** The id of a user's direct chat with the bot (stable, so events and sends agree). */
export const directChatId = (uid: string) => hex24(`direct:${uid}`);
/** The topic id the main chat of a group reports in events and v1 answers. */
export const mainTopicId = (gid: string) => hex24(`main:${gid}`);

export class MessagingState {
	readonly records: MessageRecord[] = [];
	readonly taps: TapRecord[] = [];
	readonly replyTokens = new Map<string, ReplyToken>();
	readonly pictures = new PictureStore();
	private seq = 0;

	constructor(
		private readonly config: EmulatorConfig,
		private readonly directory: ChatDirectory,
	) {}

	reset(): void {
		this.records.length = 0;
		this.taps.length = 0;
		this.replyTokens.clear();
		this.pictures.reset();
	}

	/** An active user other than the bot. */
	activeUser(uid: string): BotUser | undefined {
		const user = this.directory.users.get(uid);
		return user && !user.deleted && uid !== this.directory.botUserId ? user : undefined;
	}

	/** Whether a user may write in a chat: a member of the group, or the user of a direct chat. */
	canWrite(target: ChatTarget, uid: string): boolean {
		if (target.uid !== undefined) return target.uid === uid;
		return this.directory.groups.get(target.gid)?.members.has(uid) ?? false;
	}

	/** The direct chat of a user, for the v1 direct routes. */
	userChat(uid: string): ChatLookup {
		if (!this.activeUser(uid)) return { status: 404, code: 'user_not_found', message: `User ${uid} not found` };
		return { target: { gid: directChatId(uid), tid: null, uid } };
	}

	/** A group (or direct chat) id and an optional topic id; an empty tid or the main topic's id is the main chat. */
	groupChat(gid: string, tid: string | undefined): ChatLookup {
		const group = this.directory.groups.get(gid);
		const main = tid === undefined || tid === '' || tid === mainTopicId(gid);
		if (group) {
			if (!group.members.has(this.directory.botUserId)) {
				return { status: 403, code: 'not_in_group', message: 'The bot is not a member of this group' };
			}
			if (main) return { target: { gid, tid: null } };
			const topic = this.directory.topics.get(tid);
			if (topic?.gid !== gid) return { status: 404, code: 'topic_not_found', message: `Topic ${tid} not found in group ${gid}` };
			return { target: { gid, tid } };
		}
		const owner = [...this.directory.users.keys()].find((uid) => directChatId(uid) === gid && this.activeUser(uid));
		if (!owner) return { status: 404, code: 'group_not_found', message: `Group ${gid} not found` };
		if (!main) return { status: 404, code: 'topic_not_found', message: `Topic ${tid} not found in group ${gid}` };
		return { target: { gid, tid: null, uid: owner } };
	}

	record(entry: Omit<MessageRecord, 'seq' | 'time' | 'messageId'>): MessageRecord {
		const full: MessageRecord = { seq: ++this.seq, time: new Date().toISOString(), messageId: objectId(), ...entry };
		this.records.push(full);
		return full;
	}

	/** A place in the chat's order, taken when a tap starts so the bot's answer to it comes after it. */
	reserveSeq(): { seq: number; time: string } {
		return { seq: ++this.seq, time: new Date().toISOString() };
	}

	recordTap(entry: Omit<TapRecord, 'seq' | 'time'>, at = this.reserveSeq()): TapRecord {
		const full: TapRecord = { ...at, ...entry };
		this.taps.push(full);
		return full;
	}

	/** Records for a chat: uid = everything the user got directly; gid (and tid, '' for the main chat) = a group or topic. */
	received(filter: ChatFilter & { route?: string } = {}): MessageRecord[] {
		return this.records.filter((r) => inChat(r.target, filter) && (filter.route === undefined || r.route.endsWith(filter.route)));
	}

	/** Taps on messages of a chat (same filter as received). */
	tapsIn(filter: ChatFilter = {}): TapRecord[] {
		return this.taps.filter((t) => inChat(t.target, filter));
	}

	issueReplyToken(target: ChatTarget, eventType: string): string {
		const token = randomBytes(16).toString('hex');
		this.replyTokens.set(token, { token, target, eventType, expiresAt: Date.now() + this.config.replyTokenTtlSeconds * 1000 });
		return token;
	}

	/**
	 * Checks a reply token and, when it is good, marks it used in the same step
	 * (no await in between, so two concurrent replies cannot both pass).
	 */
	redeemReplyToken(token: string): { target: ChatTarget } | { message: string } {
		const entry = this.replyTokens.get(token);
		if (!entry) return { message: 'Invalid reply token' };
		if (entry.usedAt !== undefined) return { message: 'Reply token has already been used' };
		if (Date.now() >= entry.expiresAt) return { message: 'Reply token has expired' };
		entry.usedAt = Date.now();
		return { target: entry.target };
	}

	expireReplyTokens(): void {
		for (const entry of this.replyTokens.values()) entry.expiresAt = 0;
	}
}
