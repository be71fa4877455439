/**
 * What the three credentials share: the icon and the Base URL field (its rule is transport/baseUrl.ts).
 */
import type { Icon, INodeProperties } from 'n8n-workflow';

/** Paths relative to dist/credentials/, where n8n loads the credentials from. */
export const CREDENTIAL_ICON: Icon = {
	light: 'file:../nodes/Workplace/workplace.svg',
	dark: 'file:../nodes/Workplace/workplace.dark.svg',
};

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
