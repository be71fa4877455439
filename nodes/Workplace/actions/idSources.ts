/**
 * The bot's ids as the fields that take them show them: an example of the
 * value (the service's ids of users, groups and topics are 24 hexadecimal
 * characters) and where a workflow gets one, said under the field. The service
 * has no route that lists groups or topics, so their ids come only from an
 * event or a create's output.
 */
export interface IdSource {
	placeholder: string;
	hint: string;
}

export const GROUP_ID: IdSource = {
	placeholder: 'e.g. 64b7f0a1c2d3e4f5a6b7d001',
	hint: 'From the Workplace Trigger\'s item (groupId) or Group → Create\'s output (_id); the service cannot list groups',
};

export const TOPIC_ID: IdSource = {
	placeholder: 'e.g. 64b7f0a1c2d3e4f5a6b7e001',
	hint: 'From the Workplace Trigger\'s item (topicId) or Group Chat Topic → Create\'s output (_id)',
};

export const USER_ID: IdSource = {
	placeholder: 'e.g. 64b7f0a1c2d3e4f5a6b7c801',
	hint: 'From the Workplace Trigger\'s item (userId) or User → Find by Username\'s output (id; _id with Simplify off)',
};
