/**
 * The three credentials' Test buttons, run as n8n's CredentialsTester runs them
 * (the nodes' testedBy functions), against the emulator and small local servers
 * over real HTTP and TLS: for each cause of failure, the test says the same
 * message as the node gives when a run fails for that cause, and nothing is sent
 * past a redirect. The causes and messages: testbed/credentialCauses.ts (real n8n:
 * e2e/tests/credentials.e2e.test.ts).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';

import type { INodeParameters } from 'n8n-workflow';

import { SERVICE_APIS, type ServiceApi } from '../../emulator/clientCredentials';
import { redirectSays, SAYS, startCauseServers, tokenFirst, urlOf, WRONG_SECRET, type CauseServers } from '../../testbed/credentialCauses';
import { CREDENTIALS, emulatorCredential, suiteTestbed } from '../../testbed/testbed';

const bed = suiteTestbed();
let servers: CauseServers;

beforeAll(async () => {
	servers = await startCauseServers();
});
afterAll(async () => {
	await servers?.close();
});
beforeEach(() => {
	servers.reachedElsewhere.length = 0;
});

/** Sets fields of an API's credential (the others stay the emulator's valid ones). */
function setCredential(api: ServiceApi, fields: Record<string, string>) {
	const credential = emulatorCredential(bed.emulator, api);
	bed.credentialsHelper.set({ ...credential, data: { ...credential.data, ...fields } });
}

/** A cheap operation of each API. */
const OPERATION: Record<ServiceApi, INodeParameters> = {
	knowledgeBase: { resource: 'knowledgeBase', operation: 'get', knowledgeId: 1 },
	taskProjects: { resource: 'task', operation: 'create', taskTitle: 'Call back' },
	bot: { resource: 'user', operation: 'findByUsername', username: 'anan.w' },
};

/** The node's error for the same cause, with one attempt (the node's retries are not what is compared). */
async function nodeError(api: ServiceApi): Promise<string> {
	const run = await bed.runNode({ ...OPERATION[api], options: { retry: { retry: { maxAttempts: 1 } } } }, { typeVersion: 2 });
	expect(run.error).toBeDefined();
	return String(run.error?.message);
}

const test = async (api: ServiceApi) => await bed.testCredential(CREDENTIALS[api].id);

describe.each(SERVICE_APIS)('the %s credential test', (api) => {
	it("passes with the emulator's credentials", async () => {
		await expect(test(api)).resolves.toEqual({ status: 'OK', message: SAYS.ok });
	});

	it('says a wrong secret as the node does', async () => {
		setCredential(api, WRONG_SECRET[api]());
		expect(await test(api)).toEqual({ status: 'Error', message: SAYS.wrongSecret[api] });
		expect(await nodeError(api)).toBe(SAYS.wrongSecret[api]);
	});

	it('refuses a Base URL with a path before sending anything, as the node does', async () => {
		setCredential(api, { baseUrl: `${bed.emulator.url}/elsewhere/` });
		expect(await test(api)).toEqual({ status: 'Error', message: SAYS.path });
		expect(await nodeError(api)).toContain(SAYS.path);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('takes a Base URL ending in /api/v1 without it, as the node does', async () => {
		setCredential(api, { baseUrl: `${bed.emulator.url}/api/v1/` });
		await expect(test(api)).resolves.toEqual({ status: 'OK', message: SAYS.ok });
		const run = await bed.runNode(OPERATION[api], { typeVersion: 2 });
		expect(run.error).toBeUndefined();
		expect(bed.emulator.log.every((entry) => !entry.path.startsWith('/api/v1/api/v1'))).toBe(true);
	});

	it('refuses a Base URL without a scheme before sending anything, as the node does', async () => {
		setCredential(api, { baseUrl: bed.emulator.url.replace(/^http:\/\//, '') });
		expect(await test(api)).toEqual({ status: 'Error', message: SAYS.noScheme });
		expect(await nodeError(api)).toContain(SAYS.noScheme);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('says an unreachable host as the node does', async () => {
		setCredential(api, { baseUrl: 'http://127.0.0.1:9' });
		expect(await test(api)).toEqual({ status: 'Error', message: tokenFirst(api, SAYS.refused) });
		expect((await nodeError(api)).toLowerCase()).toContain(SAYS.refused.toLowerCase());
	});

	it('refuses a redirect, sends nothing to where it points, and says why as the node does', async () => {
		setCredential(api, { baseUrl: urlOf(servers.redirecting) });
		expect(await test(api)).toEqual({ status: 'Error', message: redirectSays(api, urlOf(servers.elsewhere)) });
		expect(await nodeError(api)).toContain(SAYS.redirect(urlOf(servers.elsewhere)));
		expect(servers.reachedElsewhere).toHaveLength(0);
	});

	it('says a certificate that cannot be verified as the node does', async () => {
		setCredential(api, { baseUrl: urlOf(servers.selfSigned, 'https') });
		expect(await test(api)).toEqual({ status: 'Error', message: tokenFirst(api, SAYS.selfSigned) });
		expect(await nodeError(api)).toContain(SAYS.selfSigned);
	});
});

/** This machine's address on its network, if it has one: plain http:// to it leaves the machine. */
const networkAddress = Object.values(os.networkInterfaces())
	.flat()
	.find((entry) => entry && !entry.internal && entry.family === 'IPv4')?.address;

// Needs an address other than loopback; machines without one cannot show the warning.
(networkAddress ? it : it.skip)('warns when a credential that works is sent over plain http:// to another machine', async () => {
	const service = createServer((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[]}'));
	await new Promise<void>((resolve) => service.listen(0, networkAddress, resolve));
	try {
		const host = `${networkAddress}:${(service.address() as AddressInfo).port}`;
		setCredential('knowledgeBase', { baseUrl: `http://${host}` });
		expect(await test('knowledgeBase')).toEqual({
			status: 'Error',
			message:
				`The API key worked, but the Base URL starts with plain http://, so it travels unencrypted to ${host}: ` +
				'use https:// if the service offers it (the node works over http:// too; this test fails only to say so)',
		});
		// The node itself works over http://.
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'getAll', returnAll: true }, { typeVersion: 2 });
		expect(run.error).toBeUndefined();
	} finally {
		await new Promise<void>((resolve) => service.close(() => resolve()));
	}
});
