/**
 * What the three credentials share: the icon, the Base URL field (its rule is
 * transport/baseUrl.ts) and how authenticate puts the secret on a request.
 */
import type { ICredentialDataDecryptedObject, Icon, IHttpRequestOptions, INodeProperties } from 'n8n-workflow';

/** Paths relative to dist/credentials/, where n8n loads the credentials from. */
export const CREDENTIAL_ICON: Icon = {
	light: 'file:../nodes/Workplace/workplace.svg',
	dark: 'file:../nodes/Workplace/workplace.dark.svg',
};

/** The same description for all three: the rule is one (parseBaseUrl). */
export function baseUrlProperty(): INodeProperties {
	return {
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://workplace.example.com',
		description:
			'Address of your service: https:// and the host, without any path (a trailing /api/v1 is ignored). Plain http:// works, but the credential test warns that secrets then travel unencrypted.',
	};
}

/**
 * A credential's authenticate that adds the headers `headersFor` makes from the
 * credential to each request (what it throws refuses the request). A function,
 * not a `{{$credentials.…}}` template: n8n runs authenticate for every request,
 * and a template costs a full expression evaluation each time (about half of
 * n8n's work per request on a fast network).
 */
export function authenticateWithHeaders(
	headersFor: (credentials: ICredentialDataDecryptedObject) => Record<string, string>,
): (credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions) => Promise<IHttpRequestOptions> {
	return async (credentials, requestOptions) => {
		requestOptions.headers = { ...requestOptions.headers, ...headersFor(credentials) };
		return requestOptions;
	};
}
