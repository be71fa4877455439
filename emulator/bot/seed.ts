/**
 * The service's seed directory: users, groups and their topics. Fixed ids so
 * tests, demos and docs can name them. Its active users are also the ones a
 * task can be assigned to (server.ts hands them to the task-projects API).
 */

export interface BotUser {
	_id: string;
	username: string;
	email: string;
	firstname: string;
	lastname: string;
	position: string;
	deleted: boolean;
	avatar: string;
	network_admin: boolean;
}

export interface BotGroupSettings {
	isPrivate: boolean;
	isMemberManaged: boolean;
	isCreatorManaged: boolean;
	isAdminManaged: boolean;
	isAutoManagedMember: boolean;
	isReadOnly: boolean;
	onlyAdminCanPost: boolean;
}

export interface GroupPicture {
	filename: string;
	contentType: string;
	size: number;
	sha256: string;
}

export interface BotGroup {
	_id: string;
	name: string;
	type: 'group_chatv2';
	/** Member user ids, the bot's included when it is a member. */
	members: Set<string>;
	settings: BotGroupSettings;
	picture: GroupPicture | null;
}

export interface BotTopic {
	_id: string;
	name: string;
	gid: string;
}

/** The bot's own user id; it is not listed by the user look-up. */
export const BOT_USER_ID = '64b7f0a1c2d3e4f5a6b7c800';

export const SEED_USER_IDS = {
	somchai: '64b7f0a1c2d3e4f5a6b7c801',
	/** Deleted account whose username resembles the active `somchai.k`. */
	somchaiOld: '64b7f0a1c2d3e4f5a6b7c802',
	nattaya: '64b7f0a1c2d3e4f5a6b7c803',
	/** Active user with an empty position. */
	anan: '64b7f0a1c2d3e4f5a6b7c804',
	pimchanok: '64b7f0a1c2d3e4f5a6b7c805',
	arthit: '64b7f0a1c2d3e4f5a6b7c806',
} as const;

export const SEED_GROUP_IDS = {
	/** The bot and somchai, nattaya, pimchanok are members. */
	incidentRoom: '64b7f0a1c2d3e4f5a6b7d001',
	/** The bot is not a member (somchai, anan, arthit are). */
	privateLounge: '64b7f0a1c2d3e4f5a6b7d002',
} as const;

export const SEED_TOPIC_IDS = {
	/** A topic of the Incident Room (alerts go here). */
	incidentAlerts: '64b7f0a1c2d3e4f5a6b7e001',
	/** A topic of the Private Lounge (the bot is not a member of that group). */
	loungeLunch: '64b7f0a1c2d3e4f5a6b7e002',
} as const;

/** Settings of every group the bot creates (the values the public pages show). */
export function defaultGroupSettings(): BotGroupSettings {
	return {
		isPrivate: true,
		isMemberManaged: false,
		isCreatorManaged: true,
		isAdminManaged: false,
		isAutoManagedMember: false,
		isReadOnly: false,
		onlyAdminCanPost: false,
	};
}

function user(
	_id: string,
	username: string,
	firstname: string,
	lastname: string,
	position: string,
	extra: { deleted?: boolean; networkAdmin?: boolean } = {},
): BotUser {
	return {
		_id,
		username,
		email: `${username}@example.com`,
		firstname,
		lastname,
		position,
		deleted: extra.deleted ?? false,
		avatar: `https://cdn.workplace.example/avatars/${_id}.png`,
		network_admin: extra.networkAdmin ?? false,
	};
}

/** A user as GET /bot/v1/users lists one: the directory's fields, without avatar and admin flag. */
export function listedUser({ _id, username, email, firstname, lastname, position, deleted }: BotUser) {
	return { _id, username, email, firstname, lastname, position, deleted };
}

export function seedBotUsers(): Map<string, BotUser> {
	const u = SEED_USER_IDS;
	const users = [
		user(u.somchai, 'somchai.k', 'Somchai', 'Kittisak', 'Site Reliability Engineer', { networkAdmin: true }),
		user(u.somchaiOld, 'somchai.k.old', 'Somchai', 'Kittisak', 'Site Reliability Engineer', { deleted: true }),
		user(u.nattaya, 'nattaya.p', 'Nattaya', 'Prasert', 'Product Manager'),
		user(u.anan, 'anan.w', 'Anan', 'Wongsa', ''),
		user(u.pimchanok, 'pimchanok.s', 'Pimchanok', 'Srisuk', 'Backend Developer'),
		user(u.arthit, 'arthit.c', 'Arthit', 'Chaiyaporn', 'Operations Lead'),
	];
	return new Map(users.map((x) => [x._id, x]));
}

export function seedBotGroups(): Map<string, BotGroup> {
	const u = SEED_USER_IDS;
	const groups: BotGroup[] = [
		{
			_id: SEED_GROUP_IDS.incidentRoom,
			name: 'Incident Room',
			type: 'group_chatv2',
			members: new Set([BOT_USER_ID, u.somchai, u.nattaya, u.pimchanok]),
			settings: defaultGroupSettings(),
			picture: null,
		},
		{
			_id: SEED_GROUP_IDS.privateLounge,
			name: 'Private Lounge',
			type: 'group_chatv2',
			members: new Set([u.somchai, u.anan, u.arthit]),
			settings: defaultGroupSettings(),
			picture: null,
		},
	];
	return new Map(groups.map((g) => [g._id, g]));
}

/** Active (non-deleted) seed user ids: the task-projects API accepts these as assigneeId. */
export function activeSeedUserIds(): Set<string> {
	return new Set([...seedBotUsers().values()].filter((x) => !x.deleted).map((x) => x._id));
}

export function seedBotTopics(): Map<string, BotTopic> {
	const topics: BotTopic[] = [
		{ _id: SEED_TOPIC_IDS.incidentAlerts, name: 'Alerts', gid: SEED_GROUP_IDS.incidentRoom },
		{ _id: SEED_TOPIC_IDS.loungeLunch, name: 'Lunch', gid: SEED_GROUP_IDS.privateLounge },
	];
	return new Map(topics.map((t) => [t._id, t]));
}
