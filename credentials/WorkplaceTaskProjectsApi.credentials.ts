import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';
import { UserError } from 'n8n-workflow';

import { authenticateWithHeaders, baseUrlProperty, CREDENTIAL_ICON } from '../shared/credentialParts';
import { parseBaseUrl } from '../shared/transport/baseUrl';
import { bareToken, jwtProblem } from '../shared/transport/jwt';

/**
 * Task-projects interface: every request carries `Authorization: Bearer <JWT>`.
 *
 * The test (the nodes' testedBy, methods/credentialTest.ts) sends a create
 * without a title, which the service can only refuse. Before anything is sent,
 * the Base URL and the token's expiry are checked locally (authenticate), as
 * the node does.
 */
export class WorkplaceTaskProjectsApi implements ICredentialType {
	name = 'workplaceTaskProjectsApi';

	displayName = 'Workplace Task Projects API';

	icon: Icon = CREDENTIAL_ICON;

	// A literal: n8n's verification rules read the URL from the class itself.
	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-workplace#credentials';

	properties: INodeProperties[] = [
		baseUrlProperty(),
		{
			displayName: 'JWT',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'JSON Web Token with write access to task projects, sent as "Authorization: Bearer …". Its expiry is checked before each run.',
			hint: 'Ask your service\'s administrator for one with write access to task projects: the service\'s documents do not say how it is issued',
		},
	];

	/** The Bearer header; an address or a token that cannot work stops the request before it is sent (never quoting the token). */
	authenticate = authenticateWithHeaders((credentials) => {
		const address = parseBaseUrl(credentials.baseUrl);
		if ('problem' in address) throw new UserError(address.problem);
		const problem = jwtProblem(credentials.token);
		if (problem) throw new UserError(problem);
		// A pasted "Bearer " prefix is dropped so the header never says it twice.
		return { Authorization: `Bearer ${bareToken(String(credentials.token))}` };
	});
}
