/**
 * What each of the package's credential types holds to reach an emulator with
 * its valid secrets: the one mapping the test bed, the benchmarks, `npm run
 * dev` / `demo` and the end-to-end suites build their credentials from.
 */

/** The emulator's address and secrets (`Emulator` in server.ts), all a client needs of it. */
export interface EmulatorAccess {
	url: string;
	credentials: { apiKey: string; jwt: string; clientId: string; clientSecret: string };
}

export function credentialData(emulator: EmulatorAccess) {
	const { url, credentials } = emulator;
	return {
		workplaceKnowledgeBaseApi: { baseUrl: url, apiKey: credentials.apiKey },
		workplaceTaskProjectsApi: { baseUrl: url, token: credentials.jwt },
		workplaceBotApi: { baseUrl: url, clientId: credentials.clientId, clientSecret: credentials.clientSecret },
	};
}

/** Name of one of the package's credential types. */
export type CredentialType = keyof ReturnType<typeof credentialData>;

/** The credential type of each API of the service. */
export const CREDENTIAL_TYPES = {
	knowledgeBase: 'workplaceKnowledgeBaseApi',
	taskProjects: 'workplaceTaskProjectsApi',
	bot: 'workplaceBotApi',
} as const satisfies Record<string, CredentialType>;

/** An API of the service, as the credential types divide them. */
export type ServiceApi = keyof typeof CREDENTIAL_TYPES;
export const SERVICE_APIS = Object.keys(CREDENTIAL_TYPES) as ServiceApi[];
