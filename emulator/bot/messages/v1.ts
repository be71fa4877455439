/**
 * Bot v1 messaging: push text, pictures and files to a user's direct chat or a
 * group (topic), and reply with a replyToken. Strict: the published content
 * type only, required fields, limits; files are read as a stream and
 * recorded by sha256 and size.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import type { EmulatorConfig } from '../../types';
import { type ChatTarget, type RecordedFile, mainTopicId } from '../state';
import { MESSAGE_LIMITS } from './schema';
import { GROUP_PICTURE_TYPES } from '../createGroup';
import { isPlainObject, mediaType } from '../../common/helpers';
import { Refusal, chatOf, handle, invalid, type MessageRouteDeps, optionalTid, replyChat, requireJson, requiredText } from './refusal';
import { FileTooLargeError, type ReadForm, readForm } from '../multipart';

/** message {type: 'text', data} of the v1 JSON push routes. */
function textOf(body: Record<string, unknown>): string {
	const message = body.message;
	if (!isPlainObject(message)) throw invalid('message is required (an object with type and data)');
	if (message.type !== 'text') throw invalid('message.type must be text');
	return requiredText(message.data, 'message.data', MESSAGE_LIMITS.text);
}

async function readMessageForm(request: FastifyRequest, config: EmulatorConfig): Promise<ReadForm> {
	if (!request.isMultipart()) throw invalid('Content-Type must be multipart/form-data');
	try {
		return await readForm(request, config.maxMessageFileBytes);
	} catch (err) {
		if (err instanceof FileTooLargeError) throw new Refusal(400, 'invalid_file', `file is larger than the limit of ${err.limit} bytes`);
		throw err;
	}
}

/** The single value of a form field. */
export function formField(form: ReadForm, name: string): string | undefined {
	const values = form.fields.get(name);
	if (values && values.length > 1) throw invalid(`${name} must be sent once`);
	return values?.[0];
}

/** The one `file` part; images must be PNG, JPEG, GIF or WebP. */
function filePart(form: ReadForm, image: boolean): RecordedFile {
	if (form.fields.has('file')) throw new Refusal(400, 'invalid_file', 'file must be a file part, not a text field');
	const stray = form.files.find((f) => f.name !== 'file');
	if (stray) throw new Refusal(400, 'invalid_file', `Unexpected file part ${stray.name}; send the file as a part named file`);
	if (form.files.length === 0) throw new Refusal(400, 'invalid_file', 'file is required (a file part)');
	if (form.files.length > 1) throw new Refusal(400, 'invalid_file', 'Only one file part is allowed');
	const { name, filename, contentType, size, sha256 } = form.files[0];
	if (size === 0) throw new Refusal(400, 'invalid_file', 'file is empty');
	if (image && !GROUP_PICTURE_TYPES.includes(contentType.toLowerCase())) {
		throw new Refusal(400, 'invalid_file', `A picture must be PNG, JPEG, GIF or WebP; got ${contentType}`);
	}
	return { part: name, filename, contentType, size, sha256 };
}

export function registerV1MessageRoutes(app: FastifyInstance, opts: RouteShorthandOptions, { config, messaging }: MessageRouteDeps): void {
	const sent = (reply: FastifyReply, target: ChatTarget, type: string, messageId: string) =>
		reply.code(200).send(
			config.v1SendAnswer === 'status'
				? { status: 'success' }
				: { status: 'success', message: { id: messageId, type, groupId: target.gid, threadId: target.tid ?? mainTopicId(target.gid) } },
		);
	const route = (path: string) => `POST ${path}`;

	// Push text (JSON).
	for (const kind of ['direct', 'group'] as const) {
		const path = `/bot/v1/${kind}/message`;
		app.post(path, opts, handle(async (request, reply) => {
			const body = requireJson(request);
			const text = textOf(body);
			const target =
				kind === 'direct'
					? chatOf(messaging.userChat(requiredText(body.uid, 'uid')))
					: chatOf(messaging.groupChat(requiredText(body.gid, 'gid'), optionalTid(body.tid)));
			const rec = messaging.record({ route: route(path), target, text });
			return sent(reply, target, 'text', rec.messageId);
		}));
	}

	// Push a picture or a file (multipart, streamed).
	for (const kind of ['direct', 'group'] as const) {
		for (const what of ['picture', 'file'] as const) {
			const path = `/bot/v1/${kind}/${what}`;
			app.post(path, opts, handle(async (request, reply) => {
				const form = await readMessageForm(request, config);
				const file = filePart(form, what === 'picture');
				const caption = what === 'picture' ? formField(form, 'caption') : undefined;
				const target =
					kind === 'direct'
						? chatOf(messaging.userChat(requiredText(formField(form, 'uid'), 'uid')))
						: chatOf(messaging.groupChat(requiredText(formField(form, 'gid'), 'gid'), formField(form, 'tid')));
				const rec = messaging.record({ route: route(path), target, file, ...(caption ? { caption } : {}) });
				return sent(reply, target, what, rec.messageId);
			}));
		}
	}

	// Replies: 200 with an empty body (GR).
	const replied = (reply: FastifyReply) => reply.code(200).send();
	const redeem = (token: string): ChatTarget => replyChat(messaging, token);

	app.post('/bot/v1/message/text', opts, handle(async (request, reply) => {
		let text: string;
		let token: string;
		if (mediaType(request) === 'application/json') {
			// The service declares multipart, yet bots in use send JSON: config.textReplyJson decides.
			if (config.textReplyJson !== 'accept') {
				throw new Refusal(415, 'unsupported_media_type', 'Content-Type must be multipart/form-data');
			}
			const body = requireJson(request);
			text = requiredText(body.message, 'message', MESSAGE_LIMITS.text);
			token = requiredText(body.replyToken, 'replyToken');
		} else {
			const form = await readMessageForm(request, config);
			if (form.files.length > 0) throw invalid('message and replyToken must be text fields, not files');
			text = requiredText(formField(form, 'message'), 'message', MESSAGE_LIMITS.text);
			token = requiredText(formField(form, 'replyToken'), 'replyToken');
		}
		const target = redeem(token);
		messaging.record({ route: route('/bot/v1/message/text'), target: { ...target, replyToken: token }, text });
		return replied(reply);
	}));

	app.post('/bot/v1/message/picture', opts, handle(async (request, reply) => {
		const form = await readMessageForm(request, config);
		const file = filePart(form, true);
		const token = requiredText(formField(form, 'replyToken'), 'replyToken');
		const target = redeem(token);
		messaging.record({ route: route('/bot/v1/message/picture'), target: { ...target, replyToken: token }, file });
		return replied(reply);
	}));

	app.post('/bot/v1/message/quickreply', opts, handle(async (request, reply) => {
		const body = requireJson(request);
		const token = requiredText(body.replyToken, 'replyToken');
		const message = body.message;
		if (!isPlainObject(message)) throw invalid('message is required (an object with data and meta)');
		const text = requiredText(message.data, 'message.data', MESSAGE_LIMITS.text);
		quickReplyMetaCheck(message.meta, body.meta !== undefined);
		const target = redeem(token);
		messaging.record({ route: route('/bot/v1/message/quickreply'), target: { ...target, replyToken: token }, text, meta: message.meta });
		return replied(reply);
	}));
}

/** message.meta.quickreply {template: 'default', items[{type: 'label', value, data: {text}}]}; meta sits inside message, not beside it. */
function quickReplyMetaCheck(meta: unknown, metaAtTopLevel: boolean): void {
	if (!isPlainObject(meta)) {
		throw invalid(`message.meta is required${metaAtTopLevel ? ' (meta belongs inside message, not at the top level)' : ''}`);
	}
	const quick = meta.quickreply;
	if (!isPlainObject(quick)) throw invalid('message.meta.quickreply is required (an object)');
	if (quick.template !== 'default') throw invalid('message.meta.quickreply.template must be default');
	const items = quick.items;
	if (!Array.isArray(items) || items.length === 0) throw invalid('message.meta.quickreply.items is required (a non-empty array)');
	const max = MESSAGE_LIMITS.quickReplyItems;
	if (items.length > max) throw invalid(`message.meta.quickreply.items has ${items.length} entries; at most ${max} are allowed`);
	items.forEach((item: unknown, i) => {
		const at = `message.meta.quickreply.items[${i}]`;
		if (!isPlainObject(item)) throw invalid(`${at} must be an object`);
		if (item.type !== 'label') throw invalid(`${at}.type must be label`);
		requiredText(item.value, `${at}.value`, MESSAGE_LIMITS.label);
		if (!isPlainObject(item.data)) throw invalid(`${at}.data is required (an object with text)`);
		requiredText(item.data.text, `${at}.data.text`, MESSAGE_LIMITS.text);
	});
}
