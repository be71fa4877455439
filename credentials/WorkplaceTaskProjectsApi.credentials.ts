import type { IAuthenticateGeneric, Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

import { baseUrlProperty, CREDENTIAL_ICON, CREDENTIALS_DOCUMENTATION_URL } from '../nodes/Workplace/shared/credentialParts';

/**
 * Task-projects interface: every request carries `Authorization: Bearer <JWT>`.
 *
 * There is no `test` request here on purpose. The interface has only POST
 * creates, so a declarative test that succeeds would create a task. The
 * Workplace node tests this credential instead (`testedBy`,
 * nodes/Workplace/methods/credentialTest.ts): it checks the token's expiry
 * locally, then sends a create without a title, which the service refuses
 * after checking the token, so nothing can be created.
 */
export class WorkplaceTaskProjectsApi implements ICredentialType {
	name = 'workplaceTaskProjectsApi';

	displayName = 'Workplace Task Projects API';

	icon: Icon = CREDENTIAL_ICON;

	documentationUrl = CREDENTIALS_DOCUMENTATION_URL;

	properties: INodeProperties[] = [
		baseUrlProperty('Address of the service, without the /api/v1 suffix'),
		{
			displayName: 'JWT',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'JSON Web Token with write access to task projects, sent as "Authorization: Bearer …". Its expiry is checked before each run.',
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				// A pasted "Bearer " prefix is dropped so the header never says it twice.
				Authorization: '=Bearer {{ String($credentials.token).trim().replace(/^bearer\\s+/i, "") }}',
			},
		},
	};
}
