/**
 * What the Send and Wait engine suites share: the question they ask (to the
 * Incident Room's Alerts topic), workflows around it, and a person answering
 * it through n8n's waiting webhooks (testbed/waitingWebhooks.ts) as a browser
 * does: the link opened, then the page's form sent with its token.
 */
import type { INode, INodeParameters } from 'n8n-workflow';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS } from '../../emulator/bot/seed';
import { IF_APPROVED_PARAMETERS } from '../../testbed/answerPage';
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
			parameters: IF_APPROVED_PARAMETERS,
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

export { answerByLink, hiddenFields, openLink as open, postForm as post } from '../../testbed/answerPage';
