/**
 * What the three credentials share: the icon, the documentation link and the
 * Base URL field (its rule is transport/baseUrl.ts).
 */
import type { Icon, INodeProperties } from 'n8n-workflow';

/** Paths relative to dist/credentials/, where n8n loads the credentials from. */
export const CREDENTIAL_ICON: Icon = {
	light: 'file:../nodes/Workplace/workplace.svg',
	dark: 'file:../nodes/Workplace/workplace.dark.svg',
};

export const CREDENTIALS_DOCUMENTATION_URL = 'https://www.npmjs.com/package/n8n-nodes-workplace#credentials';

export function baseUrlProperty(description: string): INodeProperties {
	return {
		displayName: 'Base URL',
		name: 'baseUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'https://workplace.example.com',
		description,
	};
}
