/**
 * What the Send and Wait engine suites share: the question they ask (to the
 * Incident Room's Alerts topic), workflows around it, and a person answering
 * it through n8n's waiting webhooks (testbed/waitingWebhooks.ts) as a browser
 * does: the link opened, then the page's form sent with its token.
 */
import type { INode, INodeParameters } from 'n8n-workflow';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS } from '../../emulator/bot/seed';
import { HarnessNodeTypes, readCommunityPackage, type WorkflowJson } from '../../testbed/engine';
import { NODE_TYPE, singleNodeWorkflow } from '../../testbed/testbed';
import { ROOT } from '../../testbed/root';

export const ALERTS = { gid: SEED_GROUP_IDS.incidentRoom, tid: SEED_TOPIC_IDS.incidentAlerts };

/** Message → Send and Wait parameters, with `parameters` over the defaults. */
export const ask = (parameters: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'sendAndWait',
	sendTo: 'group',
	groupId: { __rl: true, mode: 'id', value: ALERTS.gid },
	topicId: { __rl: true, mode: 'id', value: ALERTS.tid },
	message: 'Deploy release 2.4?',
	...parameters,
});

const noOp = (name: string, x: number): INode => ({ id: name.toLowerCase(), name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [x, 0], parameters: {} });

/** Manual Trigger → Workplace (the question) → After, so a resume shows which answer went on. */
export function questionWorkflow(parameters: INodeParameters): WorkflowJson {
	const workflow = singleNodeWorkflow(ask(parameters), { typeVersion: 2 });
	workflow.nodes.push(noOp('After', 400));
	workflow.connections.Workplace = { main: [[{ node: 'After', type: 'main', index: 0 }]] };
	return workflow;
}

/**
 * The same node asking again in one execution, as in a loop: an approval goes
 * round through Again back to the question; a decline ends at After.
 */
export function loopWorkflow(parameters: INodeParameters): WorkflowJson {
	const workflow = singleNodeWorkflow(ask({ approvalOptions: { values: { approvalType: 'double' } }, ...parameters }), { typeVersion: 2 });
	workflow.nodes.push(
		{
			id: 'approved',
			name: 'Approved?',
			type: 'n8n-nodes-base.if',
			typeVersion: 2,
			position: [400, 0],
			parameters: {
				conditions: {
					options: { caseSensitive: true, leftValue: '', typeValidation: 'strict' },
					conditions: [{ id: 'c1', leftValue: '={{ $json.data.approved }}', rightValue: true, operator: { type: 'boolean', operation: 'true', singleValue: true } }],
					combinator: 'and',
				},
				options: {},
			},
		},
		noOp('Again', 600),
		noOp('After', 600),
	);
	workflow.connections.Workplace = { main: [[{ node: 'Approved?', type: 'main', index: 0 }]] };
	workflow.connections['Approved?'] = { main: [[{ node: 'Again', type: 'main', index: 0 }], [{ node: 'After', type: 'main', index: 0 }]] };
	workflow.connections.Again = { main: [[{ node: 'Workplace', type: 'main', index: 0 }]] };
	return workflow;
}

/**
 * The package loaded anew, as another n8n process (or the same one after a
 * restart) has it: nothing the node keeps in its own memory is shared.
 */
export function anotherProcess(): HarnessNodeTypes {
	const nodeTypes = new HarnessNodeTypes();
	const pkg = readCommunityPackage(ROOT, true);
	jest.isolateModules(() => {
		for (const ref of pkg.nodeClasses) nodeTypes.loadFromFile(ref, pkg.packageName);
	});
	if (!nodeTypes.getKnownTypes()[NODE_TYPE]) throw new Error('the package did not load');
	return nodeTypes;
}

export interface Answered {
	status: number;
	body: string;
	headers: Headers;
}

const answered = async (response: Response): Promise<Answered> => ({ status: response.status, body: await response.text(), headers: response.headers });

/**
 * Opens a link (GET). Node's fetch sends `Sec-Fetch-Mode: cors` whatever it is
 * told, so this opens it as a program does, without the other headers a
 * browser adds; a browser's navigation is driven in the end-to-end suites.
 */
export const open = async (url: string, headers: Record<string, string> = {}) => await answered(await fetch(url, { headers }));

/** The page's hidden token, and its form's other hidden fields. */
export function hiddenFields(html: string): Record<string, string> {
	return Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, name, value]) => [name, value.replace(/&amp;/g, '&')]));
}

/** Sends a form as the page's own form does: from the same origin, url-encoded, or multipart with `multipart`. */
export async function post(url: string, fields: Record<string, string | string[]> = {}, options: { multipart?: boolean; headers?: Record<string, string> } = {}) {
	const body = options.multipart ? new FormData() : new URLSearchParams();
	for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
	const origin = new URL(url).origin;
	return await answered(await fetch(url, { method: 'POST', body, headers: { origin, 'sec-fetch-site': 'same-origin', ...options.headers } }));
}

/** A person answering by link: opens it, then sends its form with the page's token and `fields`. */
export async function answerByLink(url: string, fields: Record<string, string | string[]> = {}, multipart = false): Promise<Answered> {
	const page = await open(url);
	if (page.status !== 200) return page;
	return await post(url, { ...hiddenFields(page.body), ...fields }, { multipart });
}
