/**
 * The package in n8n's editor, driven through headless Chromium the way a user
 * works: sign in, find the node in the nodes panel by its name, see every
 * resource and operation offered, and run Knowledge Base → Get Many against the
 * emulator with the knowledge base credential; open the message builder of
 * Message → Send to Group or Topic. Screenshots of the key moments
 * go to docs/ (the README shows them); a failing step leaves its screenshot and
 * page HTML in test-results/.
 */
import path from 'node:path';
import { selectors, type Locator, type Page } from 'playwright-core';

import { redactedHeader } from '../../emulator/common/requestLog';
import type { ResourceDefinition } from '../../nodes/Workplace/actions/types';
import { cutOff, dismissDialogs, launchChromium, signInToEditor, step, type Chromium } from '../lib/browser';
import { EXAMPLE_CREDENTIALS, exampleWorkflows } from '../../testbed/examples';
import { ROOT } from '../../testbed/root';
import { until } from '../../testbed/until';
import { e2eTestbed } from '../lib/testbed';

// The package as n8n loads it: the table from dist/, not from the sources.
const { RESOURCES } = require(path.join(ROOT, 'dist', 'nodes', 'Workplace', 'actions', 'resources.js')) as {
	RESOURCES: ResourceDefinition[];
};

const DOCS = path.join(ROOT, 'docs');
const KB_CREDENTIAL = EXAMPLE_CREDENTIALS.workplaceKnowledgeBaseApi;
// The message builder is shown as the alert example fills it in.
const ALERT = exampleWorkflows().find((e) => e.file === 'group-alert-with-buttons.json')!;
const ALERT_SENDER = 'Post the alert to the Alerts topic';
// The Workplace Knowledge Trigger as the change alert example sets it up.
const CHANGE_ALERT = exampleWorkflows().find((e) => e.file === 'knowledge-change-alert.json')!;
// Knowledge File → Get Many of a new (version 3) node, Simplify on by default, as a user adds it.
const FILES_NODE = "List the handbook's files";
const SIMPLIFIED = {
	id: 'simplifiedfiles01',
	name: 'Knowledge files, simplified',
	nodes: [
		{ id: 'simplified-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{
			id: 'simplified-files',
			name: FILES_NODE,
			type: 'n8n-nodes-workplace.workplace',
			typeVersion: 3,
			position: [220, 0],
			parameters: { resource: 'knowledgeFile', operation: 'getAll', knowledgeId: { __rl: true, mode: 'id', value: '1' }, returnAll: true },
			credentials: { workplaceKnowledgeBaseApi: { id: KB_CREDENTIAL.id, name: KB_CREDENTIAL.name } },
		},
	],
	connections: { Start: { main: [[{ node: FILES_NODE, type: 'main', index: 0 }]] } },
	settings: {},
};
// The panels issue 33 changed, as a user adds the nodes: a Workplace Trigger, and version 3 nodes whose ids are still empty.
const BOT_CREDENTIAL = EXAMPLE_CREDENTIALS.workplaceBotApi;
const TP_CREDENTIAL = EXAMPLE_CREDENTIALS.workplaceTaskProjectsApi;
const workplaceNode = (id: string, name: string, parameters: Record<string, unknown>, credentials: Record<string, unknown>, x: number) => ({
	id,
	name,
	type: 'n8n-nodes-workplace.workplace',
	typeVersion: 3,
	position: [x, 200],
	parameters,
	credentials,
});
const PANELS = {
	id: 'newcomerpanels01',
	name: 'Panels a newcomer reads',
	nodes: [
		{
			id: 'panels-trigger',
			name: 'Workplace Trigger',
			type: 'n8n-nodes-workplace.workplaceTrigger',
			typeVersion: 2,
			position: [0, 0],
			webhookId: '0b4f7c52-6a1d-4e8b-9f3a-2c5d7e9a1b30',
			parameters: {},
			credentials: { workplaceBotApi: { id: BOT_CREDENTIAL.id, name: BOT_CREDENTIAL.name } },
		},
		workplaceNode(
			'panels-send',
			'Send to a group',
			{ resource: 'message', operation: 'sendToGroup', groupId: { __rl: true, mode: 'id', value: '' }, topicId: { __rl: true, mode: 'id', value: '' } },
			{ workplaceBotApi: { id: BOT_CREDENTIAL.id, name: BOT_CREDENTIAL.name } },
			0,
		),
		workplaceNode(
			'panels-task',
			'Create a task',
			{ resource: 'task', operation: 'create', taskTitle: '', additionalFields: { assigneeId: '', parentId: '' } },
			{ workplaceTaskProjectsApi: { id: TP_CREDENTIAL.id, name: TP_CREDENTIAL.name } },
			220,
		),
		workplaceNode('panels-group', 'Create a group chat', { resource: 'group', operation: 'create' }, { workplaceBotApi: { id: BOT_CREDENTIAL.id, name: BOT_CREDENTIAL.name } }, 440),
	],
	connections: {},
	settings: {},
};
// Generous: the CI machine has two cores, shared with other n8n instances.
const UI_TIMEOUT = 60_000;
// The editor's state is read again every 250 ms while a step waits for it.
const UI_POLLING = { everyMs: 250 };

const bed = e2eTestbed({
	workflows: [ALERT.workflow, CHANGE_ALERT.workflow, SIMPLIFIED, PANELS],
});
let browser: Chromium;
let page: Page;

// n8n's editor marks its elements with data-test-id.
selectors.setTestIdAttribute('data-test-id');

beforeAll(async () => {
	browser = await launchChromium();
	page = browser.page;
	page.setDefaultTimeout(UI_TIMEOUT);
	page.setDefaultNavigationTimeout(120_000);
}, 600_000);

afterAll(async () => {
	await browser?.close();
}, 120_000);

describe('the Workplace node in n8n 2.41.1, in headless Chromium', () => {
	test('signs in through the sign-in form', async () => {
		await step(page, 'sign-in', async () => {
			await signInToEditor(page, bed.url);
			await page.getByTestId('project-home-menu-item').waitFor();
		});
	});

	test('finds the node by its name in the nodes panel, with every operation of the package as an action', async () => {
		await step(page, 'nodes-panel', async () => {
			await page.goto(`${bed.n8n.url}/workflow/new`);
			await dismissDialogs(page);
			await page.getByTestId('node-creator-plus-button').click();
			const creator = page.getByTestId('node-creator');
			await creator.getByTestId('node-creator-search-bar').fill('Workplace');
			const found = creator.getByTestId('item-iterator-item').filter({ has: exactText(page, 'node-creator-item-name', 'Workplace') });
			await found.first().waitFor();
			await page.screenshot({ path: path.join(DOCS, 'e2e-nodes-search.png') });
			await found.first().click();

			// The node's page lists the trigger's events and, under "Actions", every operation's `action` text.
			const actions = creator.getByTestId('node-creator-category-item').filter({ hasText: /^\s*Actions/ });
			await actions.waitFor();
			const wanted = RESOURCES.flatMap((resource) => resource.operations.map((operation) => operation.action));
			// The count in the heading is the node's own: no action of another node slipped in.
			expect(await actions.innerText()).toMatch(new RegExp(`Actions \\(${wanted.length}\\)`));
			if ((await actions.locator('..').getAttribute('data-category-collapsed')) === 'true') await actions.click();
			const names = creator.getByTestId('node-creator-item-name');
			const listed = await until('every action listed', async () => {
				const texts = (await names.allInnerTexts()).map((text) => text.trim());
				return wanted.every((action) => texts.includes(action)) ? texts : undefined;
			}, UI_TIMEOUT, UI_POLLING);
			expect(wanted.filter((action) => !listed.includes(action))).toEqual([]);
			// Keep the actions in view for the picture: fold the trigger events away.
			const triggers = creator.getByTestId('node-creator-category-item').filter({ hasText: /^\s*Triggers/ });
			if ((await triggers.locator('..').getAttribute('data-category-collapsed')) === 'false') await triggers.click();
			await names.filter({ hasText: wanted[wanted.length - 1] }).waitFor();
			await page.screenshot({ path: path.join(DOCS, 'e2e-nodes-panel.png') });

			await creator.getByTestId('item-iterator-item').filter({ has: exactText(page, 'node-creator-item-name', 'Get many knowledge bases') }).click();
			await page.getByTestId('ndv').waitFor();
		});
	});

	test('offers every resource, and for each resource every operation, in the node parameters', async () => {
		await step(page, 'resources-and-operations', async () => {
			const ndv = page.getByTestId('ndv');
			const offered = await dropdownOptions(page, ndv.getByTestId('parameter-input-resource'));
			expect(RESOURCES.map((r) => r.name).filter((name) => !offered.includes(name))).toEqual([]);
			await page.screenshot({ path: path.join(DOCS, 'e2e-resources.png') });
			await closeDropdown(page, ndv.getByTestId('parameter-input-resource'));

			const missing: string[] = [];
			for (const resource of RESOURCES) {
				await choose(page, ndv.getByTestId('parameter-input-resource'), resource.name);
				const operations = await dropdownOptions(page, ndv.getByTestId('parameter-input-operation'));
				for (const operation of resource.operations) {
					if (!operations.includes(operation.name)) missing.push(`${resource.name} → ${operation.name}`);
				}
				if (resource.value === 'knowledgeFile') await page.screenshot({ path: path.join(DOCS, 'e2e-operations.png') });
				await closeDropdown(page, ndv.getByTestId('parameter-input-operation'));
			}
			expect(missing).toEqual([]);
		});
	});

	test('runs Knowledge Base → Get Many with the knowledge base credential and shows the rows', async () => {
		await step(page, 'get-many', async () => {
			const ndv = page.getByTestId('ndv');
			await choose(page, ndv.getByTestId('parameter-input-resource'), 'Knowledge Base');
			await choose(page, ndv.getByTestId('parameter-input-operation'), 'Get Many');
			const credential = ndv.getByTestId('node-credentials-select');
			await credential.click();
			await page.getByTestId(`node-credentials-select-item-${KB_CREDENTIAL.id}`).click();
			await until('credential selected', async () => ((await credential.locator('input').inputValue()) === KB_CREDENTIAL.name ? true : undefined), UI_TIMEOUT, UI_POLLING);

			bed.emulator.clearLog();
			await ndv.getByTestId('node-execute-button').click();
			const served = bed.emulator.knowledge.listBases().map((base) => base.name);
			expect(served).toContain('Employee Handbook');
			const output = ndv.getByTestId('output-panel').getByTestId('ndv-data-container');
			const cells = output.locator('table tbody td');
			const shown = await until('rows in the output panel', async () => {
				const texts = (await cells.allInnerTexts()).map((text) => text.trim());
				return served.every((name) => texts.includes(name)) ? texts : undefined;
			}, UI_TIMEOUT, UI_POLLING);
			expect(shown).toEqual(expect.arrayContaining(served));
			expect(await ndv.getByTestId('output-panel').innerText()).toContain(`${served.length} items`);
			// The rows came from the emulator, asked with the credential's key (the log keeps only its fingerprint).
			const calls = bed.emulator.logFor('GET', '/api/v1/knowledge');
			expect(calls.length).toBeGreaterThan(0);
			expect(calls.map((call) => call.status)).toEqual(calls.map(() => 200));
			const key = redactedHeader('x-api-key', bed.emulator.credentials.apiKey);
			expect(calls.every((call) => call.headers['x-api-key'] === key)).toBe(true);
			await page.screenshot({ path: path.join(DOCS, 'e2e-get-many-output.png') });
		});
	});
});

describe('Simplify', () => {
	test('a new node lists knowledge files simplified: the file item (the name as uploaded, size, type, status and the knowledge base)', async () => {
		await step(page, 'simplified-output', async () => {
			await page.goto(`${bed.n8n.url}/workflow/${SIMPLIFIED.id}/simplified-files`);
			await dismissDialogs(page);
			const ndv = page.getByTestId('ndv');
			await ndv.waitFor();
			await ndv.getByTestId('node-execute-button').click();
			const output = ndv.getByTestId('output-panel');
			const files = bed.emulator.knowledge.files;
			const handbook = [...files.values()].filter((file) => file.knowledgeId === 1);
			const cells = output.getByTestId('ndv-data-container').locator('table th, table td');
			const shown = await until('simplified rows in the output panel', async () => {
				const texts = (await cells.allInnerTexts()).map((text) => text.trim());
				return handbook.every((file) => texts.includes(file.meta.originalName)) ? texts : undefined;
			}, UI_TIMEOUT, UI_POLLING);
			for (const column of ['originalName', 'size', 'mimeType', 'status', 'usedByLanguageModel', 'knowledgeId', 'knowledgeName']) expect(shown).toContain(column);
			expect(shown).toContain('Employee Handbook');
			// The raw answer's storage fields are not in the simplified items.
			expect(shown).not.toContain('storageContainerName');
			expect(shown.some((text) => handbook.some((file) => text === file.name))).toBe(false);
			// The one file being deleted is named in the run's hint.
			const deleting = handbook.find((file) => file.status === 'deleting')!;
			await until('the hint about the file being deleted', async () => ((await output.innerText()).includes(deleting.meta.originalName) ? true : undefined), UI_TIMEOUT, UI_POLLING);
			// The picture shows one file item whole: its ten fields do not fit the table's width.
			await showJson(output);
			await until('the file item as JSON', async () => ((await output.innerText()).includes('knowledgeName') ? true : undefined), UI_TIMEOUT, UI_POLLING);
			await page.mouse.move(0, 0);
			await page.screenshot({ path: path.join(DOCS, 'simplified-output.png') });
		});
	});
});

describe('the message builder', () => {
	test('shows a buttons message with its buttons, their action types and a quick reply, as the alert example fills it in', async () => {
		await step(page, 'message-builder', async () => {
			const node = ALERT.workflow.nodes.find((n) => n.name === ALERT_SENDER)!;
			// The editor opens a node's parameters from its address.
			await page.goto(`${bed.n8n.url}/workflow/${ALERT.id}/${node.id}`);
			await dismissDialogs(page);
			const ndv = page.getByTestId('ndv');
			await ndv.waitFor();
			expect(await ndv.getByTestId('parameter-input-resource').locator('input').inputValue()).toBe('Message');
			expect(await ndv.getByTestId('parameter-input-operation').locator('input').inputValue()).toBe('Send to Group or Topic');
			for (const label of ['Messages', 'Buttons', 'Quick Replies']) await ndv.getByText(label, { exact: true }).first().waitFor();
			// The fields the example fills without expressions show its values: the message's type, each
			// button's action type and label, the quick reply's.
			const wanted = ['Buttons', 'From JSON', 'URI', 'Dashboard', 'Postback', 'Escalate', 'Message', 'Who is on call?'];
			const shown = await until('the builder filled in', async () => {
				const values = await ndv.locator('input, textarea').evaluateAll((fields) => fields.map((f) => (f as unknown as { value: string }).value));
				return wanted.every((value) => values.includes(value)) ? values : undefined;
			}, UI_TIMEOUT, UI_POLLING);
			expect(wanted.filter((value) => !shown.includes(value))).toEqual([]);
			// A taller window, the parameters scrolled to the message's type: the message, its buttons
			// and its quick reply in one picture.
			const viewport = page.viewportSize();
			await page.setViewportSize({ width: 1440, height: 1800 });
			await ndv.locator('input').evaluateAll((fields) => {
				const type = fields.find((f) => (f as unknown as { value: string }).value === 'Buttons');
				type?.scrollIntoView({ block: 'start' });
				// Then a little back up, so the field's own label shows too.
				let box = type?.parentElement;
				while (box && box.scrollHeight <= box.clientHeight) box = box.parentElement;
				if (box) box.scrollTop -= 60;
			});
			await page.screenshot({ path: path.join(DOCS, 'e2e-message-builder.png') });
			if (viewport) await page.setViewportSize(viewport);
		});
	});
});

describe('the Workplace Knowledge Trigger', () => {
	test('shows Poll Times, Watch, Events with the first-poll hint, and Simplify, as the change alert example sets it', async () => {
		await step(page, 'knowledge-trigger', async () => {
			const node = CHANGE_ALERT.workflow.nodes.find((n) => n.type === 'n8n-nodes-workplace.workplaceKnowledgeTrigger')!;
			await page.goto(`${bed.n8n.url}/workflow/${CHANGE_ALERT.id}/${node.id}`);
			await dismissDialogs(page);
			const ndv = page.getByTestId('ndv');
			await ndv.waitFor();
			for (const label of ['Poll Times', 'Watch', 'Events', 'Simplify']) await ndv.getByText(label, { exact: true }).first().waitFor();
			expect(await cutOff(ndv)).toEqual([]);
			expect(await ndv.getByTestId('parameter-input-watch').locator('input').inputValue()).toBe('All Knowledge Bases');
			for (const event of ['File Replaced', 'File Status Changed']) await ndv.getByText(event, { exact: true }).first().waitFor();
			await ndv.getByText(/The first poll after activation records what exists/).waitFor();
			await page.screenshot({ path: path.join(DOCS, 'e2e-knowledge-trigger.png') });

			// Fetch Test Event: a sample of each chosen event, made from the newest file, nothing recorded; shown as JSON.
			const newest = [...bed.emulator.knowledge.files.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))[0];
			await ndv.getByRole('button', { name: 'Fetch Test Event' }).first().click();
			const output = ndv.getByTestId('output-panel');
			await output.getByText('2 items').first().waitFor();
			await showJson(output);
			// The JSON view breaks lines and marks spaces with "·": compared without either.
			const json = await until('the samples as JSON', async () => {
				const text = (await output.innerText()).replace(/[\s·]+/g, '');
				return text.includes('"fileStatusChanged"') ? text : undefined;
			}, UI_TIMEOUT, UI_POLLING);
			for (const field of ['"sample":true', '"event":"fileReplaced"', `"id":${newest.id}`, '"originalName"', '"knowledgeName"', '"changes"', '"before":null']) expect(json).toContain(field);
			expect(json).not.toContain('fileAdded');
			await page.mouse.move(0, 0);
			await page.screenshot({ path: path.join(DOCS, 'e2e-knowledge-trigger-sample.png') });
		});
	});
});

describe('the panels a newcomer reads (issue 33)', () => {
	/** A node's panel, opened from its address. */
	const open = async (nodeId: string, workflowId = PANELS.id) => {
		await page.goto(`${bed.n8n.url}/workflow/${workflowId}/${nodeId}`);
		await dismissDialogs(page);
		const ndv = page.getByTestId('ndv');
		await ndv.waitFor();
		return ndv;
	};

	test('the Workplace Trigger has its credential at the top, above Events, as n8n\'s own triggers have it', async () => {
		await step(page, 'workplace-trigger', async () => {
			const ndv = await open('panels-trigger');
			const credential = ndv.getByTestId('node-credentials-select');
			const events = ndv.getByTestId('parameter-input-events');
			await credential.waitFor();
			await events.waitFor();
			const [credentialBox, eventsBox, notice] = await Promise.all([credential.boundingBox(), events.boundingBox(), ndv.getByText(/Enter this node's webhook URL/).boundingBox()]);
			expect(credentialBox!.y).toBeLessThan(notice!.y);
			expect(credentialBox!.y).toBeLessThan(eventsBox!.y);
			expect(await cutOff(ndv)).toEqual([]);
			await page.screenshot({ path: path.join(DOCS, 'e2e-workplace-trigger.png') });
		});
	});

	test('fields that take a bot id show one as their example and say where a workflow gets it; nothing is cut off', async () => {
		await step(page, 'id-hints', async () => {
			const panels: Array<[string, RegExp[]]> = [
				['panels-send', [/From the Workplace Trigger's item \(groupId\) or Group → Create's output \(_id\); the service cannot list groups/, /item \(topicId\) or Group Chat Topic → Create's output/]],
				['panels-task', [/item \(userId\) or User → Find by Username's output/, /From Project Topic → Create's or Task → Create's output/]],
				['panels-group', [/item \(userId\) or User → Find by Username's output/]],
			];
			for (const [nodeId, hints] of panels) {
				const ndv = await open(nodeId);
				for (const hint of hints) await ndv.getByText(hint).first().waitFor();
				const placeholders = await ndv.locator('input[placeholder]').evaluateAll((inputs) => inputs.map((input) => (input as unknown as { placeholder: string }).placeholder));
				expect(placeholders.filter((text) => /^e\.g\. [0-9a-f]{24}/.test(text)).length).toBeGreaterThan(0);
				expect({ nodeId, cut: await cutOff(ndv) }).toEqual({ nodeId, cut: [] });
				if (nodeId === 'panels-send') await page.screenshot({ path: path.join(DOCS, 'e2e-id-hints.png') });
			}
		});
	});

	test('the knowledge base credential says up front that the key works only from whitelisted addresses, and who has both', async () => {
		await step(page, 'knowledge-base-credential', async () => {
			const ndv = await open('simplified-files', SIMPLIFIED.id);
			await ndv.getByTestId('credential-edit-button').first().click();
			const modal = page.locator('.el-dialog:visible, [role="dialog"]:visible').filter({ hasText: KB_CREDENTIAL.name }).first();
			await modal.getByText(/takes this key only from IP addresses on its whitelist/).waitFor();
			await modal.getByText(/Ask your service's administrator for the key and to whitelist n8n's address/).waitFor();
			const [notice, key] = await Promise.all([modal.getByText(/on its whitelist/).boundingBox(), modal.getByText(/^\s*API Key/).first().boundingBox()]);
			expect(notice!.y).toBeLessThan(key!.y);
			expect(await cutOff(modal)).toEqual([]);
			await page.screenshot({ path: path.join(DOCS, 'e2e-credential-knowledge-base.png') });
			await page.keyboard.press('Escape');
		});
	});
});

/** Switches an output panel to its JSON view. */
async function showJson(output: Locator): Promise<void> {
	await output.getByText('JSON', { exact: true }).first().click();
}

/** An item whose name element (by test id) has exactly this text. */
function exactText(page: Page, testId: string, text: string): Locator {
	return page.getByTestId(testId).filter({ hasText: new RegExp(`^\\s*${escapeRegExp(text)}\\s*$`) });
}

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Opens an options parameter's dropdown and returns the option names it offers (left open). */
async function dropdownOptions(page: Page, parameter: Locator): Promise<string[]> {
	const list = await openDropdown(page, parameter);
	const headlines = list.locator('[role="option"] .option-headline');
	await headlines.first().waitFor();
	return (await headlines.allInnerTexts()).map((text) => text.trim());
}

/** The listbox of an options parameter, opened. */
async function openDropdown(page: Page, parameter: Locator): Promise<Locator> {
	const input = parameter.locator('input[role="combobox"]');
	await input.click();
	await until('dropdown open', async () => ((await input.getAttribute('aria-expanded')) === 'true' ? true : undefined), UI_TIMEOUT, UI_POLLING);
	const id = await input.getAttribute('aria-controls');
	if (!id) throw new Error('the dropdown names no listbox');
	const list = page.locator(`[id="${id}"]`);
	await list.waitFor();
	return list;
}

/** Closes an open dropdown with Escape (which the open dropdown takes, so the node view stays). */
async function closeDropdown(page: Page, parameter: Locator): Promise<void> {
	const input = parameter.locator('input[role="combobox"]');
	await page.keyboard.press('Escape');
	await until('dropdown closed', async () => ((await input.getAttribute('aria-expanded')) === 'false' ? true : undefined), UI_TIMEOUT, UI_POLLING);
}

/** Chooses the option with this name in an options parameter, and waits until it shows. */
async function choose(page: Page, parameter: Locator, name: string): Promise<void> {
	const input = parameter.locator('input[role="combobox"]');
	if ((await input.inputValue()) === name) return;
	const list = await openDropdown(page, parameter);
	await list
		.locator('[role="option"]')
		.filter({ has: page.locator('.option-headline', { hasText: new RegExp(`^\\s*${escapeRegExp(name)}\\s*$`) }) })
		.click();
	await until(`"${name}" chosen`, async () => ((await input.inputValue()) === name ? true : undefined), UI_TIMEOUT, UI_POLLING);
}
