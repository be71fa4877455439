/** The Send and Wait question the engine suites ask: to the Incident Room's Alerts topic. */
import type { INodeParameters } from 'n8n-workflow';

import { SEED_GROUP_IDS, SEED_TOPIC_IDS } from '../../emulator/bot/seed';

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
