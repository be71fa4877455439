/**
 * POST /bot/v1/groups: multipart name + repeated uids[] + optional picture.
 * Parts are consumed as a stream by readForm (the picture is hashed, never
 * buffered; every part is recorded for the request log).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type BotGroup, type GroupPicture, defaultGroupSettings } from './seed';
import type { BotState } from './state';
import { botError } from '../common/apiErrors';
import { objectId } from '../common/helpers';
import { readForm } from './multipart';

export const GROUP_PICTURE_MAX_BYTES = 5 * 1024 * 1024;
export const GROUP_PICTURE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** Read at request time (not destructured) so an in-place state reset is seen. */
type GroupCreateState = Pick<BotState, 'users' | 'groups' | 'botUserId'>;

interface ReadParts {
	name?: string;
	uids: string[];
	/** A members part under a name other than uids[] (uids, uid): worth a hint in the 400. */
	misnamedUids: string[];
	files: GroupPicture[];
	/** `file` sent as a plain field instead of a file part. */
	fileAsField: boolean;
}

async function readParts(request: FastifyRequest): Promise<ReadParts> {
	const form = await readForm(request);
	const field = (name: string) => form.fields.get(name) ?? [];
	return {
		name: field('name').at(-1),
		uids: field('uids[]'),
		misnamedUids: ['uids', 'uid'].filter((n) => form.fields.has(n)),
		files: form.files
			.filter((f) => f.name === 'file')
			.map(({ filename, contentType, size, sha256 }) => ({ filename, contentType, size, sha256 })),
		fileAsField: form.fields.has('file'),
	};
}

function pictureProblem(read: ReadParts): string | undefined {
	if (read.fileAsField) return 'file must be a file part (the group picture), not a text field';
	if (read.files.length > 1) return 'Only one file part (the group picture) is allowed';
	const picture = read.files[0];
	if (!picture) return undefined;
	if (!GROUP_PICTURE_TYPES.includes(picture.contentType.toLowerCase())) {
		return `Group picture must be PNG, JPEG, GIF or WebP; got ${picture.contentType}`;
	}
	if (picture.size === 0) return 'Group picture is empty';
	if (picture.size > GROUP_PICTURE_MAX_BYTES) {
		return `Group picture is ${picture.size} bytes; the limit is ${GROUP_PICTURE_MAX_BYTES}`;
	}
	return undefined;
}

export function createGroupHandler(deps: GroupCreateState) {
	return async (request: FastifyRequest, reply: FastifyReply) => {
		if (!request.isMultipart()) {
			return botError(reply, 400, 'invalid_request', 'Content-Type must be multipart/form-data');
		}
		const read = await readParts(request);

		const name = read.name;
		if (!name?.trim()) return botError(reply, 400, 'invalid_request', 'name is required');
		if (read.uids.length === 0) {
			const hint = read.misnamedUids.length > 0 ? `; got ${read.misnamedUids[0]}, send each member as a part named uids[]` : '';
			return botError(reply, 400, 'invalid_request', `uids[] is required (at least one member)${hint}`);
		}
		const problem = pictureProblem(read);
		if (problem) return botError(reply, 400, 'invalid_file', problem);
		const unknown = read.uids.find((uid) => uid !== deps.botUserId && (deps.users.get(uid)?.deleted ?? true));
		if (unknown !== undefined) return botError(reply, 404, 'user_not_found', `User ${unknown} not found`);

		// The creating bot is always a member; duplicates collapse.
		const members = new Set([deps.botUserId, ...read.uids]);
		const group: BotGroup = {
			_id: objectId(),
			name,
			type: 'group_chatv2',
			members,
			settings: defaultGroupSettings(),
			picture: read.files[0] ?? null,
		};
		deps.groups.set(group._id, group);
		return reply.code(200).send({
			group: { _id: group._id, name: group.name, type: group.type, userCount: members.size, settings: group.settings },
		});
	};
}
