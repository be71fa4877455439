/**
 * Bot v1 push routes: JSON text to a user or a group (topic), multipart
 * pictures and files (streamed, hashed), each strictness refusal and limit.
 */
import { BOT_USER_ID, SEED_GROUP_IDS, SEED_TOPIC_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { directChatId, mainTopicId } from '../../emulator/bot/state';
import { MESSAGE_LIMITS } from '../../emulator/bot/messages/schema';
import { pngBytes } from '../../emulator/bot/pictures';
import { multipartForm, sha256 } from '../../testbed/httpClient';
import { emulatorTestbed, type CallOptions } from '../../testbed/testbed';

const bed = emulatorTestbed();
const G = SEED_GROUP_IDS.incidentRoom;
const U = SEED_USER_IDS.nattaya;

const text = (data: unknown, type: unknown = 'text') => ({ type, data });
const post = (path: string, options: CallOptions) => bed.call(path, { method: 'POST', auth: 'bot', ...options });
const refusal = (status: number, code: string, message: string | RegExp) => ({
	status,
	body: { code, message: typeof message === 'string' ? message : expect.stringMatching(message) },
});

describe('POST /bot/v1/direct/message', () => {
	const path = '/bot/v1/direct/message';

	it('sends text to a user, answers the message and records it', async () => {
		const res = await post(path, { json: { uid: U, message: text('Deploy done') } });
		expect(res.status).toBe(200);
		expect(res.body).toEqual({
			status: 'success',
			message: { id: expect.stringMatching(/^[0-9a-f]{24}$/), type: 'text', groupId: directChatId(U), threadId: mainTopicId(directChatId(U)) },
		});
		expect(bed.emulator.messages({ uid: U })).toEqual([
			expect.objectContaining({ seq: 1, route: 'POST /bot/v1/direct/message', target: { gid: directChatId(U), tid: null, uid: U }, text: 'Deploy done', messageId: res.body.message.id }),
		]);
	});

	// One public page shows the v1 send answer as {"status":"success"} alone; another adds the message.
	it('answers only {"status":"success"} in the status mode', async () => {
		bed.emulator.setConfig({ v1SendAnswer: 'status' });
		const res = await post(path, { json: { uid: U, message: text('x') } });
		expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: '{"status":"success"}' });
	});

	it('refuses a missing token, wrong content types, missing fields and unknown users', async () => {
		const noToken = await bed.call(path, { method: 'POST', headers: { authorization: 'Bearer ' }, json: { uid: U, message: text('x') } });
		expect(noToken.status).toBe(401);
		expect(await post(path, { body: `uid=${U}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } })).toMatchObject(
			refusal(400, 'invalid_request', 'Content-Type must be application/json'),
		);
		expect((await post(path, { body: 'hi', headers: { 'content-type': 'text/plain' } })).status).toBe(400);
		expect((await post(path, { body: multipartForm({ uid: U }) })).status).toBe(400);
		expect(await post(path, { json: [] })).toMatchObject(refusal(400, 'invalid_request', 'Body must be a JSON object'));
		expect(await post(path, { json: { message: text('x') } })).toMatchObject(refusal(400, 'invalid_request', 'uid is required (a non-empty string)'));
		expect(await post(path, { json: { uid: U } })).toMatchObject(refusal(400, 'invalid_request', /^message is required/));
		expect(await post(path, { json: { uid: U, message: text('x', 'image') } })).toMatchObject(refusal(400, 'invalid_request', 'message.type must be text'));
		expect(await post(path, { json: { uid: U, message: text('') } })).toMatchObject(refusal(400, 'invalid_request', /^message\.data is required/));
		expect(await post(path, { json: { uid: U, message: text(42) } })).toMatchObject({ status: 400 });
		for (const uid of ['000000000000000000000000', SEED_USER_IDS.somchaiOld, BOT_USER_ID]) {
			expect(await post(path, { json: { uid, message: text('x') } })).toMatchObject(refusal(404, 'user_not_found', `User ${uid} not found`));
		}
		expect(bed.emulator.messages()).toEqual([]);
	});

	it(`takes text of exactly ${MESSAGE_LIMITS.text} characters and refuses one more`, async () => {
		expect((await post(path, { json: { uid: U, message: text('é'.repeat(MESSAGE_LIMITS.text)) } })).status).toBe(200);
		expect(await post(path, { json: { uid: U, message: text('a'.repeat(MESSAGE_LIMITS.text + 1)) } })).toMatchObject(
			refusal(400, 'invalid_request', `message.data must be at most ${MESSAGE_LIMITS.text} characters`),
		);
	});
});

describe('POST /bot/v1/group/message', () => {
	const path = '/bot/v1/group/message';

	it('sends to a topic, and to the main chat when tid is absent, empty or the main topic id', async () => {
		const res = await post(path, { json: { gid: G, tid: SEED_TOPIC_IDS.incidentAlerts, message: text('CPU high') } });
		expect(res.body.message).toMatchObject({ type: 'text', groupId: G, threadId: SEED_TOPIC_IDS.incidentAlerts });
		for (const tid of [undefined, '', mainTopicId(G)]) {
			const main = await post(path, { json: { gid: G, ...(tid === undefined ? {} : { tid }), message: text(`main ${tid}`) } });
			expect(main.body.message).toMatchObject({ groupId: G, threadId: mainTopicId(G) });
		}
		expect(bed.emulator.messages({ gid: G, tid: SEED_TOPIC_IDS.incidentAlerts }).map((r) => r.text)).toEqual(['CPU high']);
		expect(bed.emulator.messages({ gid: G, tid: '' })).toHaveLength(3);
		expect(bed.emulator.messages({ gid: G, tid: '' })[0].target).toEqual({ gid: G, tid: null });
	});

	it("takes a user's direct chat id as gid (a public client answers that way)", async () => {
		const res = await post(path, { json: { gid: directChatId(U), tid: '', message: text('hi') } });
		expect(res.status).toBe(200);
		expect(bed.emulator.messages({ uid: U })).toHaveLength(1);
		expect(await post(path, { json: { gid: directChatId(U), tid: SEED_TOPIC_IDS.incidentAlerts, message: text('x') } })).toMatchObject({ status: 404 });
	});

	it('refuses missing gid, a non-string tid, unknown groups and topics, and groups without the bot', async () => {
		expect(await post(path, { json: { message: text('x') } })).toMatchObject(refusal(400, 'invalid_request', 'gid is required (a non-empty string)'));
		expect(await post(path, { json: { gid: G, tid: 5, message: text('x') } })).toMatchObject(refusal(400, 'invalid_request', /^tid must be a string/));
		expect(await post(path, { json: { gid: '000000000000000000000000', message: text('x') } })).toMatchObject(refusal(404, 'group_not_found', /not found/));
		expect(await post(path, { json: { gid: G, tid: '000000000000000000000000', message: text('x') } })).toMatchObject(refusal(404, 'topic_not_found', /not found/));
		// A topic of another group is not a topic of this one.
		expect(await post(path, { json: { gid: G, tid: SEED_TOPIC_IDS.loungeLunch, message: text('x') } })).toMatchObject({ status: 404 });
		expect(await post(path, { json: { gid: SEED_GROUP_IDS.privateLounge, message: text('x') } })).toMatchObject(refusal(403, 'not_in_group', /not a member/));
		expect(await post(path, { body: multipartForm({ gid: G, message: 'x' }) })).toMatchObject({ status: 400 });
		expect(bed.emulator.messages()).toEqual([]);
	});
});

describe('v1 picture and file pushes (multipart, streamed)', () => {
	const png = pngBytes(2048);

	it('sends a picture with a caption to a user and records its hash, size and name', async () => {
		const res = await post('/bot/v1/direct/picture', { body: multipartForm({ uid: U, caption: 'Graph' }, [{ data: png, type: 'image/png', filename: 'graph.png' }]) });
		expect(res.body).toEqual({ status: 'success', message: expect.objectContaining({ type: 'picture', groupId: directChatId(U) }) });
		expect(bed.emulator.messages({ uid: U })[0]).toMatchObject({
			route: 'POST /bot/v1/direct/picture',
			caption: 'Graph',
			file: { part: 'file', filename: 'graph.png', contentType: 'image/png', size: 2048, sha256: sha256(png) },
		});
		// The request log hashes the part too, and keeps no bytes.
		const parts = bed.emulator.logFor('POST', '/bot/v1/direct/picture')[0].parts;
		expect(parts).toContainEqual({ name: 'file', filename: 'graph.png', contentType: 'image/png', size: 2048, sha256: sha256(png) });
	});

	it('sends pictures and files to groups and topics, and files of any type to users', async () => {
		const pdf = Buffer.from('%PDF-1.4 report');
		const cases: Array<[string, FormData, Record<string, unknown>]> = [
			['/bot/v1/group/picture', multipartForm({ gid: G, tid: SEED_TOPIC_IDS.incidentAlerts, caption: 'c' }, [{ data: png, type: 'image/jpeg' }]), { gid: G, tid: SEED_TOPIC_IDS.incidentAlerts }],
			['/bot/v1/group/picture', multipartForm({ gid: G }, [{ data: png, type: 'image/webp' }]), { gid: G, tid: null }],
			['/bot/v1/group/file', multipartForm({ gid: G, tid: '' }, [{ data: pdf, type: 'application/pdf', filename: 'r.pdf' }]), { gid: G, tid: null }],
			['/bot/v1/direct/file', multipartForm({ uid: U }, [{ data: pdf, type: 'application/pdf', filename: 'r.pdf' }]), { uid: U }],
		];
		for (const [path, body, target] of cases) {
			const res = await post(path, { body });
			expect({ path, status: res.status, type: res.body.message.type }).toEqual({ path, status: 200, type: path.endsWith('file') ? 'file' : 'picture' });
			expect(bed.emulator.messages().at(-1)).toMatchObject({ route: `POST ${path}`, target });
		}
		expect(bed.emulator.messages({ uid: U })[0].file).toMatchObject({ filename: 'r.pdf', size: pdf.length, sha256: sha256(pdf) });
	});

	it('refuses JSON, missing or misplaced file parts, non-images, empty files and unknown targets', async () => {
		const image = [{ data: png, type: 'image/png' }];
		const p = '/bot/v1/direct/picture';
		expect(await post(p, { json: { uid: U } })).toMatchObject(refusal(400, 'invalid_request', 'Content-Type must be multipart/form-data'));
		expect(await post(p, { body: multipartForm({ uid: U }) })).toMatchObject(refusal(400, 'invalid_file', 'file is required (a file part)'));
		expect(await post(p, { body: multipartForm({ uid: U, file: 'abc' }) })).toMatchObject(refusal(400, 'invalid_file', /not a text field/));
		expect(await post(p, { body: multipartForm({ uid: U }, [{ name: 'image', data: png, type: 'image/png' }]) })).toMatchObject(refusal(400, 'invalid_file', /Unexpected file part image/));
		expect(await post(p, { body: multipartForm({ uid: U }, [...image, ...image]) })).toMatchObject(refusal(400, 'invalid_file', 'Only one file part is allowed'));
		expect(await post(p, { body: multipartForm({ uid: U }, [{ data: png, type: 'application/pdf' }]) })).toMatchObject(refusal(400, 'invalid_file', /must be PNG, JPEG, GIF or WebP/));
		expect(await post(p, { body: multipartForm({ uid: U }, [{ data: Buffer.alloc(0), type: 'image/png' }]) })).toMatchObject(refusal(400, 'invalid_file', 'file is empty'));
		expect(await post(p, { body: multipartForm({}, image) })).toMatchObject(refusal(400, 'invalid_request', /^uid is required/));
		expect(await post(p, { body: multipartForm({ uid: '000000000000000000000000' }, image) })).toMatchObject({ status: 404 });
		expect(await post('/bot/v1/group/file', { body: multipartForm({}, image) })).toMatchObject(refusal(400, 'invalid_request', /^gid is required/));
		expect(await post('/bot/v1/group/file', { body: multipartForm({ gid: G, tid: 'nope' }, image) })).toMatchObject(refusal(404, 'topic_not_found', /nope/));
		expect(await post('/bot/v1/group/file', { body: multipartForm({ gid: G }, image) })).toMatchObject({ status: 200 });
		expect((await bed.call(p, { method: 'POST', headers: { authorization: 'Bearer wrong' }, body: multipartForm({ uid: U }, image) })).status).toBe(401);
		expect(bed.emulator.messages()).toHaveLength(1);
	});

	it('takes a file of exactly maxMessageFileBytes and refuses one byte more', async () => {
		bed.emulator.setConfig({ maxMessageFileBytes: 4096 });
		const at = await post('/bot/v1/direct/file', { body: multipartForm({ uid: U }, [{ data: Buffer.alloc(4096, 1), type: 'application/octet-stream' }]) });
		expect(at.status).toBe(200);
		const over = await post('/bot/v1/direct/file', { body: multipartForm({ uid: U }, [{ data: Buffer.alloc(4097, 1), type: 'application/octet-stream' }]) });
		expect(over).toMatchObject(refusal(400, 'invalid_file', 'file is larger than the limit of 4096 bytes'));
		const overPicture = await post('/bot/v1/group/picture', { body: multipartForm({ gid: G }, [{ data: pngBytes(4097), type: 'image/png' }]) });
		expect(overPicture).toMatchObject({ status: 400, body: { code: 'invalid_file' } });
		// Far over: the stream stops at the limit and the answer still comes.
		const big = await post('/bot/v1/direct/file', { body: multipartForm({ uid: U }, [{ data: Buffer.alloc(8 * 1024 * 1024, 2), type: 'application/pdf' }]) });
		expect(big.status).toBe(400);
		expect(bed.emulator.messages()).toHaveLength(1);
	});
});
