import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ActionProblem, buildAction } from '../message/action';
import { actionFromParameters, actionProperties } from '../message/actionFields';
import type { OperationDefinition } from '../types';
import { invalid } from '../../../../shared/validation';

const FIELDS = ['type', 'label', 'text', 'data', 'postbackText', 'templateId', 'workflowId', 'status', 'url', 'linkUri', 'areaX', 'areaY', 'areaWidth', 'areaHeight'];

export const build: OperationDefinition = {
	value: 'build',
	name: 'Build',
	action: 'Build a message action',
	description: 'Build an action object (button, carousel item, quick reply or imagemap area) to put in a bot message; sends nothing',
	properties: actionProperties('build'),
	localOutput(i) {
		const usedIn = this.getNodeParameter('usedIn', i) as string;
		const values: IDataObject = {};
		for (const name of FIELDS) values[name] = this.getNodeParameter(name, i, null) as IDataObject[string];
		try {
			const raw = actionFromParameters(values, usedIn === 'imagemap');
			const area = raw.area as IDataObject | undefined;
			const action: IDataObject = buildAction({ ...raw, type: raw.type, usedIn, area });
			return [{ json: action }];
		} catch (error) {
			if (error instanceof ActionProblem) throw invalid(this, i, error.field, error.problem);
			throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: i });
		}
	},
};
