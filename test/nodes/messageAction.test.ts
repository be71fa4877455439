/**
 * Message Action → Build: a local operation. Runs in n8n-core's real engine;
 * it must send nothing and need no credential.
 */
import type { IDataObject } from 'n8n-workflow';

import { suiteTestbed } from '../../testbed/testbed';

const bed = suiteTestbed();

const build = (params: IDataObject, items?: IDataObject[]) =>
	bed.runNode(
		{ resource: 'messageAction', operation: 'build', ...params },
		items ? { items: items.map((json) => ({ json })) } : {},
	);

const AREA = { areaX: 0, areaY: 10, areaWidth: 520, areaHeight: 1040 };

describe('Message Action → Build: every type, exactly as the document defines it', () => {
	it.each<[string, IDataObject, IDataObject]>([
		['message', { type: 'message', usedIn: 'button', label: 'Say hi', text: 'Hello team' }, { type: 'message', label: 'Say hi', text: 'Hello team' }],
		['postback with data only', { type: 'postback', usedIn: 'quickReply', label: 'Ack', data: 'action=ack&id=4711' }, { type: 'postback', label: 'Ack', data: 'action=ack&id=4711' }],
		['postback with text', { type: 'postback', usedIn: 'carousel', label: 'Ack', data: 'ack', postbackText: 'Acknowledged' }, { type: 'postback', label: 'Ack', data: 'ack', text: 'Acknowledged' }],
		['workflowTemplate', { type: 'workflowTemplate', usedIn: 'button', label: 'Leave request', templateId: 'tpl_42' }, { type: 'workflowTemplate', label: 'Leave request', templateId: 'tpl_42' }],
		['workflow', { type: 'workflow', usedIn: 'button', label: 'Open', workflowId: 'wf_7' }, { type: 'workflow', label: 'Open', workflowId: 'wf_7' }],
		['workflows without status', { type: 'workflows', usedIn: 'button', label: 'My workflows' }, { type: 'workflows', label: 'My workflows' }],
		...(['awaiting', 'processing', 'completed', 'rejected', 'canceled'].map((status) => [
			`workflows with status ${status}`,
			{ type: 'workflows', usedIn: 'quickReply', label: 'Filtered', status },
			{ type: 'workflows', label: 'Filtered', status },
		]) as Array<[string, IDataObject, IDataObject]>),
		['library with url', { type: 'library', usedIn: 'button', label: 'Handbook', url: 'https://library.example.com/doc/12' }, { type: 'library', label: 'Handbook', url: 'https://library.example.com/doc/12' }],
		['library without url', { type: 'library', usedIn: 'button', label: 'Library' }, { type: 'library', label: 'Library' }],
		['uri', { type: 'uri', usedIn: 'button', label: 'Status page', linkUri: 'https://status.example.com/4711' }, { type: 'uri', label: 'Status page', linkUri: 'https://status.example.com/4711' }],
		['uri with http:', { type: 'uri', usedIn: 'quickReply', label: 'Intranet', linkUri: 'http://intranet.example/oncall' }, { type: 'uri', label: 'Intranet', linkUri: 'http://intranet.example/oncall' }],
		['imagemap area, no label', { type: 'uri', usedIn: 'imagemap', linkUri: 'https://example.com', ...AREA }, { type: 'uri', linkUri: 'https://example.com', area: { x: 0, y: 10, width: 520, height: 1040 } }],
		['imagemap area with label', { type: 'message', usedIn: 'imagemap', label: 'Left', text: 'left', ...AREA }, { type: 'message', label: 'Left', text: 'left', area: { x: 0, y: 10, width: 520, height: 1040 } }],
		['other placement without label', { type: 'postback', usedIn: 'other', data: 'x' }, { type: 'postback', data: 'x' }],
		['a label of exactly 20 characters', { type: 'message', usedIn: 'button', label: 'x'.repeat(20), text: 't' }, { type: 'message', label: 'x'.repeat(20), text: 't' }],
		['a label of 20 thumbs with skin tones (40 code points, 20 characters as seen)', { type: 'message', usedIn: 'button', label: '👍🏽'.repeat(20), text: 't' }, { type: 'message', label: '👍🏽'.repeat(20), text: 't' }],
		['a label of 20 flags (40 code points)', { type: 'message', usedIn: 'button', label: '🇹🇭'.repeat(20), text: 't' }, { type: 'message', label: '🇹🇭'.repeat(20), text: 't' }],
		['a 20-character Thai label', { type: 'message', usedIn: 'button', label: 'รับทราบเหตุการณ์แล้วค่ะ'.slice(0, 20), text: 't' }, { type: 'message', label: 'รับทราบเหตุการณ์แล้วค่ะ'.slice(0, 20), text: 't' }],
	])('%s', async (_label, params, expected) => {
		const run = await build(params);
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([expected]);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('builds from expressions, one action per item, paired', async () => {
		const run = await build({ type: 'postback', usedIn: 'button', label: '={{ $json.label }}', data: '={{ "ack:" + $json.id }}' }, [
			{ label: 'Ack 1', id: 1 },
			{ label: 'Ack 2', id: 2 },
		]);
		expect(run.json).toEqual([
			{ type: 'postback', label: 'Ack 1', data: 'ack:1' },
			{ type: 'postback', label: 'Ack 2', data: 'ack:2' },
		]);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it('needs no credential', async () => {
		const run = await bed.run({
			nodes: [
				{ id: 't', name: 'Manual Trigger', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
				{
					id: 'w',
					name: 'Workplace',
					type: 'n8n-nodes-workplace.workplace',
					typeVersion: 1,
					position: [200, 0],
					parameters: { resource: 'messageAction', operation: 'build', type: 'message', usedIn: 'other', text: 'hi' },
				},
			],
			connections: { 'Manual Trigger': { main: [[{ node: 'Workplace', type: 'main', index: 0 }]] } },
		});
		expect(run.error).toBeUndefined();
		expect(run.json('Workplace')).toEqual([{ type: 'message', text: 'hi' }]);
	});
});

describe('Message Action → Build: every invalid case names the field, and sends nothing', () => {
	it.each<[string, IDataObject, RegExp]>([
		['no label on a button', { type: 'message', usedIn: 'button', text: 't' }, /"Label" in item 0: is required for an action used in a button template/],
		['no label on a carousel', { type: 'message', usedIn: 'carousel', text: 't' }, /"Label" in item 0: is required for an action used in a carousel/],
		['no label on a quick reply', { type: 'message', usedIn: 'quickReply', text: 't' }, /"Label" in item 0: is required for an action used in a quick reply/],
		['a blank label on a button', { type: 'message', usedIn: 'button', label: '={{ "   " }}', text: 't' }, /"Label" in item 0: is required/],
		['a 21-character label', { type: 'message', usedIn: 'button', label: 'x'.repeat(21), text: 't' }, /"Label" in item 0: must be at most 20 characters \(got 21\)/],
		['a 21-character label on an imagemap', { type: 'message', usedIn: 'imagemap', label: 'x'.repeat(21), text: 't', ...AREA }, /"Label" in item 0: must be at most 20 characters/],
		['a label that is not text', { type: 'message', usedIn: 'button', label: '={{ 42 }}', text: 't' }, /"Label" in item 0: expected text/],
		['message without text', { type: 'message', usedIn: 'other' }, /"Text" in item 0: is required for a message action/],
		['postback without data', { type: 'postback', usedIn: 'other', postbackText: 'x' }, /"Data" in item 0: is required for a postback action/],
		['workflowTemplate without template id', { type: 'workflowTemplate', usedIn: 'other' }, /"Template ID" in item 0: is required/],
		['workflow without workflow id', { type: 'workflow', usedIn: 'other' }, /"Workflow ID" in item 0: is required/],
		['workflows with an unknown status', { type: 'workflows', usedIn: 'other', status: '={{ "done" }}' }, /"Status" in item 0: must be one of awaiting, processing, completed, rejected, canceled, got "done"/],
		['library with a relative url', { type: 'library', usedIn: 'other', url: 'docs/12' }, /"URL" in item 0: must be an absolute http\(s\) URL/],
		['uri without link', { type: 'uri', usedIn: 'other' }, /"Link URI" in item 0: is required for a uri action/],
		['uri that is not a URI', { type: 'uri', usedIn: 'other', linkUri: 'status page' }, /"Link URI" in item 0: must be an absolute http\(s\) URL/],
		['an unknown type', { type: '={{ "call" }}', usedIn: 'other' }, /"Type" in item 0: must be one of message, postback/],
		['an unknown placement', { type: 'message', usedIn: '={{ "banner" }}', text: 't' }, /"Used In" in item 0: must be one of button/],
		['a negative area x', { type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaX: -1 }, /"Area X" in item 0: must be 0 or more, got -1/],
		['a negative area y', { type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaY: -5 }, /"Area Y" in item 0: must be 0 or more, got -5/],
		['a zero area width', { type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaWidth: 0 }, /"Area Width" in item 0: must be more than 0, got 0/],
		['a zero area height', { type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaHeight: 0 }, /"Area Height" in item 0: must be more than 0, got 0/],
		['a negative area width', { type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaWidth: -3 }, /"Area Width" in item 0: must be more than 0/],
		['a fractional area x', { type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaX: 1.5 }, /"Area X" in item 0: must be a whole number, got 1.5/],
		['an area value that is not a number', { type: 'message', usedIn: 'imagemap', text: 't', ...AREA, areaHeight: '={{ "tall" }}' }, /"Area Height" in item 0: must be a whole number, got "tall"/],
	])('%s', async (_label, params, message) => {
		const run = await build(params);
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(message);
		expect(bed.emulator.log).toHaveLength(0);
	});

	it('fails only the bad item with Continue On Fail', async () => {
		const run = await bed.runNode(
			{ resource: 'messageAction', operation: 'build', type: 'message', usedIn: 'button', label: '={{ $json.label }}', text: 'ok' },
			{ continueOnFail: true, items: [{ json: { label: 'Fine' } }, { json: { label: 'This label is far too long' } }] },
		);
		expect(run.json[0]).toEqual({ type: 'message', label: 'Fine', text: 'ok' });
		expect(run.json[1].error).toMatch(/"Label" in item 1: must be at most 20 characters \(got 26\)/);
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});
