/**
 * The answer form of Free Text and Custom Form: its fields as n8n's form
 * fields name them (`fieldLabel`, `fieldType`, `fieldOptions`, `requiredField`,
 * `placeholder`), the submitted form read back as the item's `data` (keyed by
 * label, as n8n's chat nodes do). Pure. Labels key tables, so every table here
 * has no prototype (a label `constructor` or `toString` is a label like any
 * other), and labels n8n drops from items when it copies them are refused.
 */
import type { IDataObject } from 'n8n-workflow';

import { keyedTable, nameN8nDrops, ownEntry } from '../ownEntry';

export const FIELD_TYPES = ['text', 'textarea', 'number', 'email', 'date', 'dropdown', 'checkbox'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
const isFieldType = (value: unknown): value is FieldType => (FIELD_TYPES as readonly unknown[]).includes(value);

/** Characters an answer may have: a textarea's (Free Text's), any other field's. */
export const TEXTAREA_MAX = 20_000;
export const FIELD_MAX = 1_000;

export interface FormField {
	label: string;
	type: FieldType;
	required: boolean;
	placeholder: string;
	/** Dropdown and checkbox choices. */
	options: string[];
}

/** The single field of Free Text; its answer is `data.text`. */
export const FREE_TEXT_FIELD: FormField = { label: 'Response', type: 'textarea', required: true, placeholder: '', options: [] };

/** The Custom Form fields parameter read as fields, or the problem with entry n (1-based). */
export function readFormFields(values: unknown): { fields: FormField[] } | { problem: string } {
	const entries = Array.isArray(values) ? (values as IDataObject[]) : [];
	if (entries.length === 0) return { problem: 'add at least one field' };
	const fields: FormField[] = [];
	const seen = new Set<string>();
	for (const [n, entry] of entries.entries()) {
		const label = typeof entry?.fieldLabel === 'string' ? entry.fieldLabel.trim() : '';
		if (label === '') return { problem: `field ${n + 1} needs a label` };
		if (nameN8nDrops(label)) return { problem: `field ${n + 1} cannot be labelled "${label}": n8n leaves a field of that name out of items; choose another label` };
		if (seen.has(label)) return { problem: `two fields are labelled "${label}"` };
		seen.add(label);
		const type = entry.fieldType ?? 'text';
		if (!isFieldType(type)) return { problem: `field "${label}" has an unknown type ${JSON.stringify(entry.fieldType)}` };
		const optionValues = (entry.fieldOptions as IDataObject | undefined)?.values;
		const options = (Array.isArray(optionValues) ? (optionValues as IDataObject[]) : [])
			.map((o) => (typeof o?.option === 'string' ? o.option.trim() : ''))
			.filter((o) => o !== '');
		if ((type === 'dropdown' || type === 'checkbox') && options.length === 0) {
			return { problem: `field "${label}" (${type}) needs at least one option` };
		}
		fields.push({ label, type, required: entry.requiredField === true, placeholder: typeof entry.placeholder === 'string' ? entry.placeholder : '', options });
	}
	return { fields };
}

/** The form control name of field n. */
export const fieldName = (n: number) => `field-${n}`;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What the form sent for field n, each value as text (a checkbox sends one value per box ticked). */
export function submitted(body: IDataObject, n: number): string[] {
	const value = ownEntry(body, fieldName(n));
	const list = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
	return list.map((v) => (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''));
}

/**
 * The submitted form (its parsed fields) as the answer's fields, or what is
 * wrong with it, by field label.
 */
export function readSubmission(fields: FormField[], body: IDataObject): { data: IDataObject } | { problems: Record<string, string> } {
	const data = keyedTable<IDataObject[string]>();
	const problems = keyedTable<string>();
	fields.forEach((field, n) => {
		const raw = submitted(body, n);
		const max = field.type === 'textarea' ? TEXTAREA_MAX : FIELD_MAX;
		if (raw.length > (field.type === 'checkbox' ? field.options.length : 1)) {
			problems[field.label] = field.type === 'checkbox' ? 'Choose among the options' : 'Enter one value';
			return;
		}
		// Counted in UTF-16 units, as a form's maxlength is: a huge answer is refused before anything reads it further.
		if (raw.some((v) => v.length > max)) {
			problems[field.label] = `At most ${max.toLocaleString('en-US')} characters`;
			return;
		}
		const given = raw.map((v) => v.trim());
		const first = given[0] ?? '';
		const empty = field.type === 'checkbox' ? given.length === 0 : first === '';
		if (empty) {
			if (field.required) problems[field.label] = 'This field is required';
			else data[field.label] = field.type === 'checkbox' ? [] : field.type === 'number' ? null : '';
			return;
		}
		switch (field.type) {
			case 'number': {
				const number = Number(first);
				if (!Number.isFinite(number)) problems[field.label] = 'Enter a number';
				else data[field.label] = number;
				break;
			}
			case 'email':
				if (!EMAIL.test(first)) problems[field.label] = 'Enter an email address';
				else data[field.label] = first;
				break;
			case 'date':
				if (!DATE.test(first) || Number.isNaN(Date.parse(first))) problems[field.label] = 'Enter a date';
				else data[field.label] = first;
				break;
			case 'dropdown':
				if (!field.options.includes(first)) problems[field.label] = 'Choose one of the options';
				else data[field.label] = first;
				break;
			case 'checkbox': {
				const unknown = given.filter((v) => !field.options.includes(v));
				if (unknown.length > 0) problems[field.label] = 'Choose among the options';
				else data[field.label] = given;
				break;
			}
			default:
				// Browsers send a textarea's line breaks as CRLF; workflows get plain newlines.
				data[field.label] = raw[0].replace(/\r\n?/g, '\n');
		}
	});
	// Items are plain objects: the labels become its own fields.
	return Object.keys(problems).length > 0 ? { problems } : { data: { ...data } };
}
