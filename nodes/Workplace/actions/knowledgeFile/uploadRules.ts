/**
 * What the service accepts as a knowledge-file upload, which the node checks
 * before it sends. The emulator judges uploads by its own reading of the
 * service, so a limit written wrong here is caught by the engine tests.
 */

/** Upload types the service accepts; any other answers 400 UnsupportedKnowledgeFileTypeError. */
export const ALLOWED_MIME_TYPES: readonly string[] = [
	'text/csv',
	'text/xml',
	'text/html',
	'application/pdf',
	'application/rtf',
	'application/xml',
	'application/msword',
	'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
	'application/vnd.ms-powerpoint',
	'application/vnd.openxmlformats-officedocument.presentationml.presentation',
	'application/vnd.ms-excel',
	'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
];

/** Maximum upload size: 100 MB, as the service counts it. */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const MAX_FILE_NAME_LENGTH = 255;
