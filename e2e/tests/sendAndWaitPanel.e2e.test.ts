/**
 * Send and Wait for Response's panel in n8n 2.41.1's editor, in headless
 * Chromium, as a user sets up an approval answered in the chat (issue 33,
 * items 3 and 5): every parameter's label shown whole (none cut off with an
 * ellipsis), the Approvers placeholder a real user id, and what Answer in Chat
 * needs said in the panel. Screenshots go to docs/images with SCREENSHOTS=1,
 * else to test-results/.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';

import { SEED_GROUP_IDS } from '../../emulator/bot/seed';
import { chainWorkflow, MANUAL_START } from '../../testbed/chainWorkflow';
import { byId } from '../../testbed/locator';
import { ROOT } from '../../testbed/root';
import { cutOff, launchChromium, RESULTS_DIR, signInToEditor, step, type Chromium } from '../lib/browser';
import { e2eTestbed } from '../lib/testbed';
import { BOT, workplaceNode } from '../lib/workflows';

const SCREENSHOTS = process.env.SCREENSHOTS ? path.join(ROOT, 'docs', 'images') : RESULTS_DIR;
const WORKFLOW = chainWorkflow('wpSendAndWaitPanel', 'Send and Wait: the panel', [
	MANUAL_START,
	workplaceNode(
		'Ask the team lead',
		BOT,
		{
			resource: 'message',
			operation: 'sendAndWait',
			sendTo: 'group',
			groupId: byId(SEED_GROUP_IDS.incidentRoom),
			topicId: byId(''),
			message: 'Deploy release 2.4 to production?',
			responseType: 'approval',
			approvalOptions: { values: { approvalType: 'double', approveLabel: 'Ship it', disapproveLabel: 'Not yet' } },
			options: { answerInChat: true, approvers: '', limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } },
		},
		3,
	),
]);
const NODE_ID = WORKFLOW.nodes[1].id;

const bed = e2eTestbed({ credentials: ['workplaceBotApi'], workflows: [WORKFLOW] });
let browser: Chromium;

beforeAll(async () => {
	browser = await launchChromium({ width: 1440, height: 1400 });
	browser.page.setDefaultTimeout(60_000);
	mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
	await browser?.close();
});

test('an approval answered in the chat: labels whole, the Approvers placeholder a real user id, what Answer in Chat needs said in the panel', async () => {
	const { page } = browser;
	await step(page, 'send-and-wait-panel', async () => {
		await signInToEditor(page, bed.url);
		await page.goto(`${bed.url}/workflow/${WORKFLOW.id}/${NODE_ID}`);
		const ndv = page.getByTestId('ndv');
		await ndv.waitFor();
		for (const label of ['Approval Options', 'Type of Approval', 'Approve Label', 'Disapprove Label', 'Answer in Chat', 'Approvers', 'Limit Wait Time']) {
			await ndv.getByText(label, { exact: true }).first().waitFor();
		}
		await ndv.getByText(/Needs an active Workplace Trigger workflow using this same bot credential/).waitFor();
		const approvers = ndv.getByTestId('parameter-input-approvers').locator('input');
		// User ids of the service are 24 hexadecimal characters; where a workflow gets one is said under the field.
		expect(await approvers.getAttribute('placeholder')).toMatch(/^e\.g\. [0-9a-f]{24}$/);
		await ndv.getByText(/item \(userId\) or User → Find by Username's output/).first().waitFor();
		await page.screenshot({ path: path.join(SCREENSHOTS, 'send-and-wait-panel.png') });
		// From a wide screen down to a small laptop's, no label is cut off.
		const cut: Record<string, string[]> = {};
		for (const [width, height] of [[1440, 1400], [1280, 800], [1024, 768], [800, 700], [640, 700]]) {
			await page.setViewportSize({ width, height });
			await ndv.getByText('Disapprove Label', { exact: true }).scrollIntoViewIfNeeded();
			await page.waitForTimeout(500);
			cut[`${width}x${height}`] = await cutOff(ndv);
			await page.screenshot({ path: path.join(RESULTS_DIR, `send-and-wait-panel-${width}.png`) });
		}
		expect(cut).toEqual({ '1440x1400': [], '1280x800': [], '1024x768': [], '800x700': [], '640x700': [] });
	});
});
