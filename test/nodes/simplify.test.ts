/**
 * Simplify (version 3): on by default, the fields a person looks for first;
 * off, and in versions 1 and 2, the service's whole answer as before. Executed
 * in n8n-core's real engine against the emulator.
 */
import type { INodeParameters } from 'n8n-workflow';

import { SEED_GROUP_IDS, SEED_USER_IDS } from '../../emulator/bot/seed';
import { NO_IDS_GIVEN } from '../../nodes/Workplace/actions/message/common';
import { RESOURCES } from '../../nodes/Workplace/actions/resources';
import { suiteTestbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';

const bed = suiteTestbed();

const firstBase = () => [...bed.emulator.knowledge.bases.values()][0];

const fileGetMany = (): INodeParameters => ({ resource: 'knowledgeFile', operation: 'getAll', knowledgeId: byId(firstBase().id), returnAll: true });

describe('Simplify', () => {
	it('is on by default in version 3: a file has the file item\'s fields (shared/knowledgeFile/file.ts): its name as uploaded, size, type, status and its knowledge base\'s id and name', async () => {
		const base = firstBase();
		const run = await bed.runNode(fileGetMany(), { typeVersion: 3 });
		expect(run.error).toBeUndefined();
		const raw = [...bed.emulator.knowledge.files.values()].find((file) => file.knowledgeId === base.id)!;
		const simplified = run.json.find((item) => item.id === raw.id);
		expect(simplified).toEqual({
			id: raw.id,
			originalName: raw.meta.originalName,
			size: raw.meta.size,
			mimeType: raw.meta.mimetype,
			status: raw.status,
			usedByLanguageModel: raw.status === 'active',
			knowledgeId: base.id,
			knowledgeName: base.name,
			createdAt: raw.createdAt,
			updatedAt: raw.updatedAt,
		});
	});

	it.each([
		['version 2', 2, {}],
		['version 1', 1, {}],
		['version 3 with Simplify off', 3, { simplify: false }],
	])('%s keeps the service\'s whole answer', async (_name, typeVersion, extra) => {
		const run = await bed.runNode({ ...fileGetMany(), ...extra }, { typeVersion });
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ meta: { originalName: expect.any(String) }, knowledge: { id: firstBase().id } });
		expect(run.json[0].storageContainerName).toBeDefined();
	});

	it('a knowledge base keeps id, name, source, target, languages and when it changed', async () => {
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'getAll', returnAll: false, limit: 1 }, { typeVersion: 3 });
		expect(Object.keys(run.json[0])).toEqual(['id', 'name', 'source', 'target', 'supportedLanguages', 'updatedAt']);
	});

	it('a user has an id, username and full name', async () => {
		const run = await bed.runNode({ resource: 'user', operation: 'findByUsername', username: 'anan.w', options: { exactMatch: true } }, { typeVersion: 3 });
		const user = bed.emulator.bot.users.get(run.json[0].id as string)!;
		expect(run.json[0]).toMatchObject({ id: user._id, username: 'anan.w', name: `${user.firstname} ${user.lastname}` });
		expect(run.json[0]).not.toHaveProperty('_id');
	});

	const send: INodeParameters = { resource: 'message', operation: 'sendToUser', userId: byId(SEED_USER_IDS.nattaya), content: 'text', text: 'Hi' };

	it('a send returns the ids the service gave', async () => {
		const run = await bed.runNode(send, { typeVersion: 3 });
		expect(run.error).toBeUndefined();
		const [record] = bed.emulator.messages({ uid: SEED_USER_IDS.nattaya });
		expect(record.messageId).toEqual(expect.any(String));
		expect(run.json[0]).toMatchObject({ sent: true, userId: SEED_USER_IDS.nattaya, ids: [record.messageId], messageId: record.messageId });
		expect(run.json[0]).not.toHaveProperty('note');
		expect(run.json[0]).not.toHaveProperty('response');
	});

	it('a send says plainly when the service gave no ids: an empty list of ids and a separate note', async () => {
		bed.emulator.setConfig({ v1SendAnswer: 'status' });
		const run = await bed.runNode(send, { typeVersion: 3 });
		expect(run.json[0]).toEqual({ sent: true, userId: SEED_USER_IDS.nattaya, ids: [], note: NO_IDS_GIVEN });
	});

	it.each([
		['version 3, simplified', 3, {}],
		['version 3 with Simplify off', 3, { simplify: false }],
		['version 2', 2, {}],
	])('%s: ids is always a list, so {{ $json.ids[0] }} is an id or nothing, never a letter of a sentence', async (_name, typeVersion, extra) => {
		const push: INodeParameters = {
			resource: 'message',
			operation: 'sendToGroup',
			groupId: byId(SEED_GROUP_IDS.incidentRoom),
			messages: { message: [{ type: 'text', text: 'Hi' }] },
			...extra,
		};
		for (const [parameters, answer] of [[send, 'message'], [send, 'status'], [push, 'push']] as const) {
			if (answer !== 'push') bed.emulator.setConfig({ v1SendAnswer: answer });
			const run = await bed.runNode({ ...parameters, ...extra }, { typeVersion });
			expect(run.error).toBeUndefined();
			const [sent] = run.json;
			expect(Array.isArray(sent.ids)).toBe(true);
			const given = typeof sent.messageId === 'string';
			expect({ answer, ids: sent.ids, note: sent.note }).toEqual({ answer, ids: given ? [sent.messageId] : [], note: given ? undefined : NO_IDS_GIVEN });
		}
	});

	it('is offered on every operation whose answer is large: knowledge bases, files, users and sends', () => {
		const offered = RESOURCES.flatMap((resource) => resource.operations.filter((op) => op.simplify).map((op) => `${resource.value}.${op.value}`));
		expect(offered.sort()).toEqual(
			[
				'knowledgeBase.create',
				'knowledgeBase.get',
				'knowledgeBase.getAll',
				'knowledgeFile.get',
				'knowledgeFile.getAll',
				'knowledgeFile.replace',
				'user.findByUsername',
				'user.getInfoInGroup',
				'message.sendToGroup',
				'message.sendToUser',
				'message.sendFileToGroup',
				'message.reply',
			].sort(),
		);
	});
});
