/**
 * The credential test of every credential type through n8n's REST API
 * (POST /rest/credentials/test, what the editor's Test button does) on a
 * running n8n 2.41.1 with the package installed as a community package: the
 * emulator's credentials pass; each cause of failure (testbed/credentialCauses.ts)
 * is said with the node's messages; a redirect is not followed; no secret, right or
 * wrong, appears in a response or in n8n's log.
 */
import { CREDENTIAL_TYPES, SERVICE_APIS } from '../../emulator/clientCredentials';
import { redirectSays, SAYS, startCauseServers, tokenFirst, urlOf, WRONG_SECRET, type CauseServers } from '../../testbed/credentialCauses';
import { exampleCredentials } from '../../testbed/examples';
import { freePort, type StoredCredential } from '../../testbed/n8n';
import { e2eTestbed } from '../lib/testbed';

const bed = e2eTestbed();
/** A port nothing listens on: taken from the OS and released at once. */
let closedPort: number;

let servers: CauseServers;
const wrongSecrets = SERVICE_APIS.map((area) => Object.values(WRONG_SECRET[area]())[0]);

beforeAll(async () => {
	servers = await startCauseServers();
	closedPort = await freePort();
});
afterAll(async () => {
	await servers?.close();
});

const responses: string[] = [];

async function test(credential: StoredCredential, data: Record<string, unknown>): Promise<{ status: string; message: string }> {
	const result = await bed.rest.request<{ status: string; message: string }>('POST', '/rest/credentials/test', {
		credentials: { ...credential, data: { ...credential.data, ...data } },
	});
	responses.push(JSON.stringify(result));
	return result;
}

const credential = (type: string) => {
	const found = exampleCredentials(bed.emulator).find((c) => c.type === type);
	if (!found) throw new Error(`no credential of type ${type}`);
	return found;
};

describe.each(SERVICE_APIS)('%s', (area) => {
	const type = CREDENTIAL_TYPES[area];
	const sent = { knowledgeBase: '/api/v1/knowledge', taskProjects: '/api/v1/task-projects/tasks', bot: '/oauth/token' }[area];

	it("passes with the emulator's credentials, having asked the service", async () => {
		bed.emulator.clearLog();
		expect(await test(credential(type), {})).toEqual({ status: 'OK', message: SAYS.ok });
		expect(bed.emulator.log.some((entry) => entry.path === sent)).toBe(true);
	});

	it('says a wrong secret with the node\'s message', async () => {
		bed.emulator.clearLog();
		expect(await test(credential(type), WRONG_SECRET[area]())).toEqual({ status: 'Error', message: SAYS.wrongSecret[area] });
		expect(bed.emulator.log.some((entry) => entry.path === sent && entry.status !== undefined && entry.status >= 400)).toBe(true);
	});

	it('refuses a Base URL with a path, and takes one ending in /api/v1 without it', async () => {
		expect(await test(credential(type), { baseUrl: `${bed.emulator.url}/elsewhere` })).toEqual({ status: 'Error', message: SAYS.path });
		expect(await test(credential(type), { baseUrl: `${bed.emulator.url}/api/v1` })).toEqual({ status: 'OK', message: SAYS.ok });
	});

	it('refuses a Base URL without a scheme', async () => {
		expect(await test(credential(type), { baseUrl: bed.emulator.url.replace(/^http:\/\//, '') })).toEqual({ status: 'Error', message: SAYS.noScheme });
	});

	it('says an unreachable host with the node\'s message', async () => {
		const result = await test(credential(type), { baseUrl: `http://127.0.0.1:${closedPort}` });
		expect(result).toEqual({ status: 'Error', message: tokenFirst(area, SAYS.refused) });
	});

	it('refuses a redirect, sending nothing to where it points', async () => {
		servers.reachedElsewhere.length = 0;
		const result = await test(credential(type), { baseUrl: urlOf(servers.redirecting) });
		expect(result).toEqual({ status: 'Error', message: redirectSays(area, urlOf(servers.elsewhere)) });
		expect(servers.reachedElsewhere).toHaveLength(0);
	});

	it('says a certificate that cannot be verified', async () => {
		const result = await test(credential(type), { baseUrl: urlOf(servers.selfSigned, 'https') });
		expect(result).toEqual({ status: 'Error', message: tokenFirst(area, SAYS.selfSigned) });
	});
});

it('no secret, right or wrong, is in a response or in n8n\'s log', () => {
	expect(responses).toHaveLength(SERVICE_APIS.length * 8);
	const text = responses.join('\n') + bed.n8n.output.join('');
	const { apiKey, jwt, clientSecret } = bed.emulator.credentials;
	for (const secret of [apiKey, jwt, clientSecret, ...wrongSecrets]) expect(text).not.toContain(secret);
});
