/**
 * The causes a credential test must tell apart, and the message it must say for
 * each, per credential (the node's message for the same cause): shared by the
 * engine test (test/nodes/credentialTests.test.ts) and the real-n8n test
 * (e2e/tests/credentials.e2e.test.ts). Also the small local servers some causes
 * need: one that redirects everything, the address it redirects to (which must
 * receive nothing), and a TLS server with a self-signed certificate.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import type { ServiceApi } from '../emulator/clientCredentials';
import { issueJwt } from '../emulator/taskProjects/jwt';

/** A well-formed, unexpired token signed with a key the service does not have. */
const wrongJwt = issueJwt('jwt-secret-the-service-never-used', { expiresInSeconds: 3600 });

/** The one field each credential has that can be wrong, set wrong. */
export const WRONG_SECRET: Record<ServiceApi, () => Record<string, string>> = {
	knowledgeBase: () => ({ apiKey: 'kb_wrong-key-0000000000000000' }),
	taskProjects: () => ({ token: wrongJwt }),
	bot: () => ({ clientSecret: 'secret_wrong-0000000000000000' }),
};

export const SAYS = {
	ok: 'Connection successful',
	wrongSecret: {
		knowledgeBase: "The service rejected the credentials: Invalid API key (check the API key, and that this machine's IP address is whitelisted)",
		taskProjects: 'The service rejected the credentials: Invalid token signature',
		bot: 'Could not obtain a bot access token: the service rejected the client ID or client secret (invalid_client: Client authentication failed)',
	} satisfies Record<ServiceApi, string>,
	path: 'The credential\'s Base URL must be the service\'s address without a path: remove "/elsewhere" (e.g. "https://workplace.example.com")',
	noScheme: 'The credential\'s Base URL has no scheme: start it with https:// (e.g. "https://workplace.example.com")',
	refused: 'The service refused the connection',
	redirect: (target: string) =>
		`the service answered with a redirect (302) to another address, ${target}; ` +
		'the node does not follow redirects, so the credentials are sent only to the Base URL. This is not an error of the service',
	selfSigned:
		"The service's TLS certificate could not be verified (DEPTH_ZERO_SELF_SIGNED_CERT); check the Base URL's host name, or have the certificate fixed (the node never skips the check)",
};

/** The bot's test fails at its token request, which says so first. */
export function tokenFirst(api: ServiceApi, message: string): string {
	return api === 'bot' ? `Could not obtain a bot access token: ${message}` : message;
}

/** Who a redirect message is about: the credential test, or the bot's token request. */
export function redirectSays(api: ServiceApi, target: string): string {
	return `${api === 'bot' ? 'Could not obtain a bot access token' : 'Testing the credential'}: ${SAYS.redirect(target)}`;
}

export const urlOf = (server: Server, scheme = 'http') => `${scheme}://127.0.0.1:${(server.address() as AddressInfo).port}`;
const listen = async (server: Server) => await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const close = async (server: Server) => await new Promise<void>((resolve) => server.close(() => resolve()));

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

export interface CauseServers {
	/** Answers every request with a 302 to `elsewhere`. */
	redirecting: Server;
	/** Where the redirect points. */
	elsewhere: Server;
	/** What reached `elsewhere` (nothing may). */
	reachedElsewhere: IncomingMessage[];
	/** TLS with a self-signed certificate: no client may trust it. */
	selfSigned: Server;
	close(): Promise<void>;
}

export async function startCauseServers(): Promise<CauseServers> {
	const reachedElsewhere: IncomingMessage[] = [];
	const elsewhere = createServer((request, response) => {
		reachedElsewhere.push(request);
		response.end('{}');
	});
	await listen(elsewhere);
	const redirecting = createServer((request, response) => {
		response.writeHead(302, { location: `${urlOf(elsewhere)}${request.url ?? '/'}` }).end();
	});
	await listen(redirecting);
	const selfSigned = createTlsServer(selfSignedCertificate(), (_request, response) => response.end('{}'));
	await listen(selfSigned);
	return {
		redirecting,
		elsewhere,
		reachedElsewhere,
		selfSigned,
		async close() {
			await Promise.all([close(redirecting), close(elsewhere), close(selfSigned)]);
		},
	};
}
