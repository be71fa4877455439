/**
 * The task-projects API's state: tasks, topics, labels and the users a task
 * may be assigned to, with a small seed (one topic, an open and a closed task).
 */
export interface ChecklistItem {
	description: string;
	isDone: boolean;
}

export interface Task {
	id: string;
	taskTitle: string;
	taskDescription: string | null;
	priority: number | null;
	dueDate: string | null;
	assigneeId: string | null;
	checklist: ChecklistItem[];
	parentId: string | null;
	/** `open` on creation; the seed holds one `closed` task to exercise the 409. */
	status: 'open' | 'closed';
	createdAt: string;
	updatedAt: string;
}

export interface Topic {
	id: string;
	taskTitle: string;
	taskDescription: string | null;
	priority: number | null;
	dueDate: string | null;
	labelIds: string[];
	attachments: Record<string, unknown>[];
	status: 'open' | 'closed';
	createdAt: string;
	updatedAt: string;
}

export interface TaskProjectsState {
	tasks: Map<string, Task>;
	topics: Map<string, Topic>;
	/** Assignable user ids: the service's active users. */
	users: Set<string>;
	labels: Set<string>;
}

export const SEED_LABEL_IDS = ['lbl_urgent', 'lbl_backend', 'lbl_ops', 'lbl_frontend'] as const;
export const SEED_TOPIC_ID = 'top_seed0001';
export const SEED_OPEN_TASK_ID = 'tsk_seed0001';
/** A closed task: creating a subtask under it answers 409. */
export const CLOSED_TASK_ID = 'tsk_closed0001';

const SEED_TIME = '2025-01-06T09:00:00.000Z';

/** The seed; `activeUserIds` are the service's active users, the only ones a task can be assigned to. */
export function createTaskProjectsState(activeUserIds: Set<string>): TaskProjectsState {
	const topic: Topic = {
		id: SEED_TOPIC_ID,
		taskTitle: 'Q1 platform reliability',
		taskDescription: 'Seed topic of the emulator',
		priority: 2,
		dueDate: '2025-03-31T17:00:00Z',
		labelIds: ['lbl_ops'],
		attachments: [],
		status: 'open',
		createdAt: SEED_TIME,
		updatedAt: SEED_TIME,
	};
	const task = (id: string, taskTitle: string, status: Task['status']): Task => ({
		id,
		taskTitle,
		taskDescription: null,
		priority: 3,
		dueDate: null,
		assigneeId: null,
		checklist: [],
		parentId: SEED_TOPIC_ID,
		status,
		createdAt: SEED_TIME,
		updatedAt: SEED_TIME,
	});
	const tasks = [task(SEED_OPEN_TASK_ID, 'Rotate on-call schedule', 'open'), task(CLOSED_TASK_ID, 'Migrate status page', 'closed')];
	return {
		tasks: new Map(tasks.map((t) => [t.id, t])),
		topics: new Map([[topic.id, topic]]),
		users: activeUserIds,
		labels: new Set(SEED_LABEL_IDS),
	};
}
