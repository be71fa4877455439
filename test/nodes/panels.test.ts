/**
 * What a newcomer reads in the panels (issue 33): the two kinds of topic named
 * apart, with the values workflows store unchanged; every field that takes a
 * bot id shows a value shaped like one and says where a workflow gets it; the
 * credentials say where the key, the whitelist, the JWT and the client ID come
 * from; the Workplace Trigger's credential is not placed below Events. The node
 * types and credentials as n8n loads them, and runs in n8n-core's real engine
 * against the emulator.
 */
import type { INodeProperties, INodePropertyCollection, INodeTypeDescription } from 'n8n-workflow';

import { SEED_GROUP_IDS } from '../../emulator/bot/seed';
import { CREDENTIALS, suiteTestbed } from '../../testbed/testbed';

const bed = suiteTestbed();

const NODE_TYPE = 'n8n-nodes-workplace.workplace';
const TRIGGER_TYPE = 'n8n-nodes-workplace.workplaceTrigger';

/** Every property of a description, the options of collections and fixed collections included. */
function allProperties(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((property) => {
		const nested = (property.options ?? []).flatMap((option) => {
			if ('values' in option) return allProperties((option as INodePropertyCollection).values);
			return 'type' in option ? allProperties([option as INodeProperties]) : [];
		});
		return [property, ...nested];
	});
}

/** The placeholder a user sees in an empty field: a resource locator's is its ID mode's. */
function placeholderOf(property: INodeProperties): string | undefined {
	if (property.type === 'resourceLocator') return property.modes?.find((mode) => mode.name === 'id')?.placeholder;
	return property.placeholder;
}

describe('the two kinds of topic', () => {
	it('are named apart in the resource list and described as what they are, with the stored values unchanged', () => {
		const { description } = bed.nodeType(NODE_TYPE, 3) as { description: INodeTypeDescription };
		const resources = description.properties.find((p) => p.name === 'resource')!.options as Array<{ name: string; value: string; description?: string }>;
		const topics = resources.filter((r) => /topic/i.test(r.name)).map(({ name, value, description: said }) => ({ name, value, said }));
		expect(topics).toEqual([
			{ name: 'Project Topic', value: 'topic', said: expect.stringMatching(/container of tasks in task projects.*not a topic of a group chat/) },
			{ name: 'Group Chat Topic', value: 'groupTopic', said: expect.stringMatching(/thread inside a group chat.*not a task-projects topic/) },
		]);
	});

	it('workflows saved with the old names run as before: their stored values are the same', async () => {
		const projectTopic = await bed.runNode({ resource: 'topic', operation: 'create', taskTitle: 'Q3 onboarding', additionalFields: {} }, { typeVersion: 3 });
		expect(projectTopic.error).toBeUndefined();
		expect(String(projectTopic.json[0].id)).toMatch(/^top_/);
		const chatTopic = await bed.runNode({ resource: 'groupTopic', operation: 'create', groupId: SEED_GROUP_IDS.incidentRoom, name: 'Timeline' }, { typeVersion: 3 });
		expect(chatTopic.error).toBeUndefined();
		expect(chatTopic.json[0]).toMatchObject({ name: 'Timeline', gid: SEED_GROUP_IDS.incidentRoom });
	});
});

describe('fields that take a bot id', () => {
	// Send and Wait's Approvers field is its own operation's (another change); every other id field is here.
	const ID_FIELDS = ['groupId', 'topicId', 'userId', 'members', 'assigneeId'];

	it('show a 24-hex id as their example and say where a workflow gets one', () => {
		const { description } = bed.nodeType(NODE_TYPE, 3) as { description: INodeTypeDescription };
		const fields = allProperties(description.properties).filter((p) => ID_FIELDS.includes(p.name));
		expect(fields.length).toBeGreaterThanOrEqual(12);
		const wrong = fields
			.map((p) => ({ field: p.name, placeholder: placeholderOf(p), hint: p.hint }))
			.filter(({ placeholder, hint }) => !/\b[0-9a-f]{24}\b/.test(placeholder ?? '') || !/Workplace Trigger's item \(\w+\)|→ Create's output/.test(hint ?? ''));
		expect(wrong).toEqual([]);
		// The group: only ever an id, so the hint says the service cannot list groups.
		expect(fields.filter((p) => p.name === 'groupId').map((p) => p.hint)).toEqual(
			fields.filter((p) => p.name === 'groupId').map(() => expect.stringMatching(/groupId.*Group → Create.*cannot list groups/)),
		);
	});
});

describe('the credentials', () => {
	const propertiesOf = (name: string) => bed.credentialType(name).properties;

	it('the knowledge base credential says at the top that the service takes the key only from whitelisted addresses, and who has the key', () => {
		const [first, ...rest] = propertiesOf('workplaceKnowledgeBaseApi');
		expect(first).toMatchObject({ type: 'notice', displayName: expect.stringMatching(/whitelist.*refused \(401\)/) });
		expect(rest.find((p) => p.name === 'apiKey')).toMatchObject({
			description: expect.stringMatching(/x-api-key/),
			hint: expect.stringMatching(/administrator.*whitelist.*documents do not say where/),
		});
	});

	it('the task projects credential says who issues the JWT, and the bot credential where the client ID is made', () => {
		expect(propertiesOf('workplaceTaskProjectsApi').find((p) => p.name === 'token')?.hint).toMatch(/administrator.*write access/);
		expect(propertiesOf('workplaceBotApi').find((p) => p.name === 'clientId')?.hint).toMatch(/bot profile: BOT INTEGRATION > Add Integration > Webhook API/);
	});

	it('with its notice, the knowledge base credential still tests and works as before: the notice is no value', async () => {
		expect(await bed.testCredential(CREDENTIALS.knowledgeBase.id)).toMatchObject({ status: 'OK' });
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'getAll', returnAll: false, limit: 1 }, { typeVersion: 3 });
		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(1);
	});
});

describe('the Workplace Knowledge Trigger', () => {
	it('names its output binary field as Download does, and offers Simplify', () => {
		const { description } = bed.nodeType('n8n-nodes-workplace.workplaceKnowledgeTrigger', 1) as { description: INodeTypeDescription };
		const download = (bed.nodeType(NODE_TYPE, 3) as { description: INodeTypeDescription }).description.properties.find(
			(p) => p.name === 'binaryPropertyName' && p.displayOptions?.show?.operation?.includes('download'),
		);
		const option = allProperties(description.properties).find((p) => p.name === 'binaryPropertyName');
		expect(option?.displayName).toBe(download?.displayName);
		expect(description.properties.find((p) => p.name === 'simplify')).toMatchObject({ type: 'boolean', default: true });
	});
});

describe('the Workplace Trigger', () => {
	it('hides its credential only when signatures are not verified, with nothing that moves it below Events', () => {
		const { description } = bed.nodeType(TRIGGER_TYPE, 2) as { description: INodeTypeDescription };
		const [credential] = description.credentials!;
		// n8n's editor places a credential after the last parameter its `show` names; none keeps it first.
		expect(credential.displayOptions?.show).toBeUndefined();
		expect(credential.displayOptions).toEqual({ hide: { verifySignature: [false] } });
	});
});
