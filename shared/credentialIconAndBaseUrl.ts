/**
 * What the three credentials share: the icon and the Base URL field (its rule is transport/baseUrl.ts).
 */
import type { Icon, INodeProperties } from 'n8n-workflow';

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
