/**
 * The three credentials' Test buttons, run as n8n's CredentialsTester runs them
 * (the nodes' testedBy functions), against the emulator and small local servers
 * over real HTTP and TLS: for each cause of failure, the test says the same
 * words as the node says when a run fails for that cause, and nothing is sent
 * past a redirect.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

import { issueJwt } from '../../emulator/jwt';
import { CREDENTIALS, emulatorCredential, Testbed } from '../harness/testbed';

type Area = keyof typeof CREDENTIALS;
const AREAS: Area[] = ['knowledgeBase', 'taskProjects', 'bot'];

let bed: Testbed;
/** Answers every request with a 302 to `elsewhere`. */
let redirecting: Server;
/** Where the redirect points; counts what reaches it (nothing may). */
let elsewhere: Server;
let reachedElsewhere: IncomingMessage[] = [];
/** TLS with a self-signed certificate: no client may trust it. */
let selfSigned: Server;

const urlOf = (server: Server, scheme = 'http') => `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
const listen = async (server: Server) => await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const close = async (server: Server | undefined) => await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));

/** A throwaway key and self-signed certificate for 127.0.0.1 (openssl, in a temp folder removed at once). */
function selfSignedCertificate(): { key: string; cert: string } {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'workplace-tls-'));
	try {
		const [keyFile, certFile] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
		execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-subj', '/CN=127.0.0.1', '-days', '1'], {
			stdio: 'ignore',
		});
		return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8') };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

beforeAll(async () => {
	bed = await Testbed.start();
	elsewhere = createServer((request: IncomingMessage, response: ServerResponse) => {
		reachedElsewhere.push(request);
		response.end('{}');
	});
	await listen(elsewhere);
	redirecting = createServer((request, response) => {
		response.writeHead(302, { location: `${urlOf(elsewhere)}${request.url ?? '/'}` }).end();
	});
	await listen(redirecting);
	selfSigned = createTlsServer(selfSignedCertificate(), (_request, response) => response.end('{}'));
	await listen(selfSigned);
});
afterAll(async () => {
	await Promise.all([close(redirecting), close(elsewhere), close(selfSigned)]);
	await bed?.close();
});
beforeEach(() => {
	bed.emulator.reset();
	reachedElsewhere = [];
	for (const area of AREAS) bed.credentialsHelper.set(emulatorCredential(bed.emulator, area));
});

/** Sets one field of an area's credential (the others stay the emulator's valid ones). */
function setCredential(area: Area, fields: Record<string, string>) {
	const credential = emulatorCredential(bed.emulator, area);
	bed.credentialsHelper.set({ ...credential, data: { ...credential.data, ...fields } });
}

/** A cheap operation of each area, with one attempt (the node's retries are not what is compared). */
const OPERATION: Record<Area, INodeParameters> = {
	knowledgeBase: { resource: 'knowledgeBase', operation: 'get', knowledgeId: 1 },
	taskProjects: { resource: 'task', operation: 'create', taskTitle: 'Call back' },
	bot: { resource: 'user', operation: 'findByUsername', username: 'anan.w' },
};
async function nodeError(area: Area): Promise<string> {
	const run = await bed.runNode({ ...OPERATION[area], options: { retry: { retry: { maxAttempts: 1 } } } }, { typeVersion: 2 });
	expect(run.error).toBeDefined();
	return String(run.error?.message);
}

const WRONG_SECRET: Record<Area, () => Record<string, string>> = {
	knowledgeBase: () => ({ apiKey: 'not-the-key' }),
	taskProjects: () => ({ token: issueJwt('wrong-secret', { expiresInSeconds: 600 }) }),
	bot: () => ({ clientSecret: 'not-the-secret' }),
};
const WRONG_SECRET_SAYS: Record<Area, string> = {
	knowledgeBase: "The service rejected the credentials: Invalid API key (check the API key, and that this machine's IP address is whitelisted)",
	taskProjects: 'The service rejected the credentials: Invalid token signature',
	bot: 'Could not obtain a bot access token: the service rejected the client ID or client secret (invalid_client: Client authentication failed)',
};

describe.each(AREAS)('the %s credential test', (area) => {
	it('passes with the emulator\'s credentials', async () => {
		await expect(bed.testCredential(CREDENTIALS[area].id)).resolves.toEqual({ status: 'OK', message: 'Connection successful' });
	});

	it('says a wrong secret as the node does', async () => {
		setCredential(area, WRONG_SECRET[area]());
		const result = await bed.testCredential(CREDENTIALS[area].id);
		expect(result).toEqual({ status: 'Error', message: WRONG_SECRET_SAYS[area] });
		expect(await nodeError(area)).toBe(WRONG_SECRET_SAYS[area]);
	});

	it('refuses a Base URL with a path before sending anything, as the node does', async () => {
		setCredential(area, { baseUrl: `${bed.emulator.url}/elsewhere/` });
		const says =
			'The credential\'s Base URL must be the service\'s address without a path: remove "/elsewhere" (e.g. "https://workplace.example.com")';
		expect(await bed.testCredential(CREDENTIALS[area].id)).toEqual({ status: 'Error', message: says });
		expect(await nodeError(area)).toContain(says);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('takes a Base URL ending in /api/v1 without it, as the node does', async () => {
		setCredential(area, { baseUrl: `${bed.emulator.url}/api/v1/` });
		await expect(bed.testCredential(CREDENTIALS[area].id)).resolves.toEqual({ status: 'OK', message: 'Connection successful' });
		const run = await bed.runNode(OPERATION[area], { typeVersion: 2 });
		expect(run.error).toBeUndefined();
		expect(bed.emulator.log.every((entry) => !entry.path.startsWith('/api/v1/api/v1'))).toBe(true);
	});

	it('refuses a Base URL without a scheme before sending anything, as the node does', async () => {
		setCredential(area, { baseUrl: bed.emulator.url.replace(/^http:\/\//, '') });
		const says = 'The credential\'s Base URL has no scheme: start it with https:// (e.g. "https://workplace.example.com")';
		expect(await bed.testCredential(CREDENTIALS[area].id)).toEqual({ status: 'Error', message: says });
		expect(await nodeError(area)).toContain(says);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('says an unreachable host as the node does', async () => {
		setCredential(area, { baseUrl: 'http://127.0.0.1:9' });
		const says = area === 'bot' ? 'Could not obtain a bot access token: The service refused the connection' : 'The service refused the connection';
		expect(await bed.testCredential(CREDENTIALS[area].id)).toEqual({ status: 'Error', message: says });
		expect((await nodeError(area)).toLowerCase()).toContain('the service refused the connection');
	});

	it('refuses a redirect, sends nothing to where it points, and says why as the node does', async () => {
		setCredential(area, { baseUrl: urlOf(redirecting) });
		const why =
			`the service answered with a redirect (302) to another address, ${urlOf(elsewhere)}; ` +
			'the node does not follow redirects, so the credentials are sent only to the Base URL. This is not an error of the service';
		const who = area === 'bot' ? 'Could not obtain a bot access token' : 'Testing the credential';
		expect(await bed.testCredential(CREDENTIALS[area].id)).toEqual({ status: 'Error', message: `${who}: ${why}` });
		expect(await nodeError(area)).toContain(why);
		expect(reachedElsewhere).toHaveLength(0);
	});

	it('says a certificate that cannot be verified as the node does', async () => {
		setCredential(area, { baseUrl: urlOf(selfSigned, 'https') });
		const says =
			"The service's TLS certificate could not be verified (DEPTH_ZERO_SELF_SIGNED_CERT); check the Base URL's host name, or have the certificate fixed (the node never skips the check)";
		const result = await bed.testCredential(CREDENTIALS[area].id);
		expect(result).toEqual({ status: 'Error', message: area === 'bot' ? `Could not obtain a bot access token: ${says}` : says });
		expect(await nodeError(area)).toContain(says);
	});
});
