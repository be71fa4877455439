import type {
	ICredentialDataDecryptedObject,
	Icon,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

import { baseUrlProperty, CREDENTIAL_ICON } from '../nodes/Workplace/shared/credentialParts';
import { BASE_URL_EXPRESSION } from '../nodes/Workplace/transport/baseUrl';

/**
 * Knowledge-base interface: every request carries `x-api-key`. The service also
 * answers 401 when the caller's IP address is not whitelisted, so the test
 * request is a real call, not a format check.
 */
export class WorkplaceKnowledgeBaseApi implements ICredentialType {
	name = 'workplaceKnowledgeBaseApi';

	displayName = 'Workplace Knowledge Base API';

	icon: Icon = CREDENTIAL_ICON;

	// A literal: n8n's verification rules read the URL from the class itself.
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		baseUrlProperty('Address of the service, without the /api/v1 suffix'),
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Knowledge-base API key, sent in the x-api-key header',
		},
	];

	/**
	 * A function, not a `{{$credentials.apiKey}}` template: n8n runs authenticate
	 * for every request, and a template costs a full expression evaluation each
	 * time (about half of n8n's work per request on a fast network).
	 */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		requestOptions.headers = { ...requestOptions.headers, 'x-api-key': String(credentials.apiKey ?? '') };
		return requestOptions;
	}

	// Lists one knowledge base: cheap, read-only, and proves both key and IP whitelist.
	test: ICredentialTestRequest = {
		request: {
			baseURL: `${BASE_URL_EXPRESSION}/api/v1`,
			url: '/knowledge',
			method: 'GET',
			qs: { 'pagination[page]': 1, 'pagination[pageSize]': 1 },
		},
	};
}
