import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

import { authenticateWithHeaders, baseUrlProperty, CREDENTIAL_ICON } from '../shared/credentialParts';

/**
 * Knowledge-base interface: every request carries `x-api-key`. The service also
 * answers 401 when the caller's IP address is not whitelisted, so the test
 * (the nodes' testedBy, methods/credentialTest.ts) is a real call, not a format
 * check; it never follows a redirect and says failures with the node's messages.
 */
export class WorkplaceKnowledgeBaseApi implements ICredentialType {
	name = 'workplaceKnowledgeBaseApi';

	displayName = 'Workplace Knowledge Base API';

	icon: Icon = CREDENTIAL_ICON;

	// A literal: n8n's verification rules read the URL from the class itself.
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		{
			// Said first: the service answers a caller it does not whitelist as it answers a wrong key (401).
			displayName:
				'The service takes this key only from IP addresses on its whitelist: have the address n8n calls from whitelisted, or every request is refused (401) as if the key were wrong',
			name: 'whitelistNotice',
			type: 'notice',
			default: '',
		},
		baseUrlProperty(),
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The knowledge base interface\'s API key, sent in the x-api-key header',
			hint: 'Ask your service\'s administrator for the key and to whitelist n8n\'s address: the service\'s documents do not say where in its admin panel either is managed',
		},
	];

	authenticate = authenticateWithHeaders((credentials) => ({ 'x-api-key': String(credentials.apiKey ?? '') }));
}
