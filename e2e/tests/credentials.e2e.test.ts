/**
 * The credential test of every credential type through n8n's REST API
 * (POST /rest/credentials/test, what the editor's "Retry"/"Save" does) on a
 * running n8n 2.41.1 with the package installed as a community package: the
 * emulator's credentials pass; a wrong secret and an unreachable Base URL fail
 * with a message saying so; no secret, right or wrong, appears in a response
 * or in n8n's log.
 */
import { rmSync } from 'node:fs';

import { issueJwt } from '../../emulator/jwt';
import { startEmulator, type Emulator } from '../../emulator/server';
import { exampleCredentials } from '../lib/examples';
import { N8n, N8nRest, freePort, installCommunityPackage, type StoredCredential } from '../lib/n8n';

let emulator: Emulator;
let n8n: N8n;
let rest: N8nRest;
/** A port nothing listens on: taken from the OS and released at once. */
let closedPort: number;

const WRONG = {
	apiKey: 'kb_wrong-key-e2e-0000000000000000',
	clientSecret: 'secret_wrong-e2e-0000000000000000',
	jwtSecret: 'jwt-secret-the-service-never-used',
};
// A well-formed, unexpired token signed with a key the service does not have.
const wrongJwt = issueJwt(WRONG.jwtSecret, { expiresInSeconds: 3600 });

beforeAll(async () => {
	emulator = await startEmulator();
	closedPort = await freePort();
	n8n = new N8n();
	await installCommunityPackage(n8n.userFolder);
	await n8n.importCredentials(exampleCredentials(emulator));
	await n8n.start();
	rest = new N8nRest(n8n.url);
	await rest.setupOwner();
	await rest.login();
});
afterAll(async () => {
	await n8n?.stop();
	await emulator?.close();
	if (n8n) rmSync(n8n.userFolder, { recursive: true, force: true });
});

const responses: string[] = [];

async function test(credential: StoredCredential, data: Record<string, unknown>): Promise<{ status: string; message: string }> {
	const result = await rest.request<{ status: string; message: string }>('POST', '/rest/credentials/test', {
		credentials: { ...credential, data: { ...credential.data, ...data } },
	});
	responses.push(JSON.stringify(result));
	return result;
}

const credential = (type: string) => {
	const found = exampleCredentials(emulator).find((c) => c.type === type);
	if (!found) throw new Error(`no credential of type ${type}`);
	return found;
};

describe.each([
	{
		type: 'workplaceKnowledgeBaseApi',
		wrong: () => ({ apiKey: WRONG.apiKey }),
		// n8n's declarative credential test reports the status text.
		wrongMessage: /^Unauthorized$/,
		sent: '/api/v1/knowledge',
	},
	{
		type: 'workplaceTaskProjectsApi',
		wrong: () => ({ token: wrongJwt }),
		wrongMessage: /^The service rejected the JWT$/,
		sent: '/api/v1/task-projects/tasks',
	},
	{
		type: 'workplaceBotApi',
		wrong: () => ({ clientSecret: WRONG.clientSecret }),
		wrongMessage: /^Could not obtain a bot access token: the service rejected the client ID or client secret \(invalid_client: /,
		sent: '/oauth/token',
	},
])('$type', ({ type, wrong, wrongMessage, sent }) => {
	it('passes with the emulator\'s credentials, having asked the service', async () => {
		emulator.clearLog();
		const result = await test(credential(type), {});
		expect(result).toMatchObject({ status: 'OK' });
		expect(emulator.log.some((entry) => entry.path === sent)).toBe(true);
	});

	it('fails with a wrong secret, saying the service refused it', async () => {
		emulator.clearLog();
		const result = await test(credential(type), wrong());
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(wrongMessage);
		expect(emulator.log.some((entry) => entry.path === sent && entry.status !== undefined && entry.status >= 400)).toBe(true);
	});

	it('fails with an unreachable Base URL, saying it could not connect', async () => {
		const result = await test(credential(type), { baseUrl: `http://127.0.0.1:${closedPort}` });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/ECONNREFUSED/);
	});
});

it('no secret, right or wrong, is in a response or in n8n\'s log', () => {
	expect(responses).toHaveLength(9);
	const text = responses.join('\n') + n8n.output.join('');
	const { apiKey, jwt, clientSecret } = emulator.credentials;
	for (const secret of [apiKey, jwt, clientSecret, WRONG.apiKey, WRONG.clientSecret, wrongJwt]) expect(text).not.toContain(secret);
});
