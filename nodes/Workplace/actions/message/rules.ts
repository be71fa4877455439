/**
 * What the service publishes of v2 message objects: their types, the action
 * types, workflow statuses, image options and limits, which the node checks
 * before it sends. The emulator judges messages by its own reading of the
 * service, so a limit written wrong here is caught by the engine tests.
 */

export const MESSAGE_TYPES = ['text', 'image', 'video', 'audio', 'imagemap', 'template'] as const;
export const ACTION_TYPES = ['message', 'postback', 'workflowTemplate', 'workflow', 'workflows', 'library', 'uri'] as const;
export const WORKFLOW_STATUSES = ['awaiting', 'processing', 'completed', 'rejected', 'canceled'] as const;
export const IMAGE_ASPECT_RATIOS = ['rectangle', 'square'] as const;
export const IMAGE_SIZES = ['cover', 'contain'] as const;

/** Characters of an action's label (buttons, carousel columns, quick replies, imagemap areas). */
export const LABEL_MAX = 20;
/** The messaging pages' limit for every URL of a message, applied to the addresses actions open too. */
export const URL_MAX = 1000;

export const MESSAGE_LIMITS = {
	/** Every URL of a message (content, preview, base, thumbnail, quick-reply icon, and what actions open). */
	url: URL_MAX,
	title: 40,
	/** Buttons text, and carousel column text. */
	text: 160,
	/** The same text when the template (or column) also has an image or a title. */
	textWithImageOrTitle: 60,
	/** Per buttons template, and per carousel column (the column limit is not published; the buttons rule is applied). */
	actions: 4,
	columns: 10,
	imagemapActions: 50,
} as const;
