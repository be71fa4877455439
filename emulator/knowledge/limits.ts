/**
 * What the knowledge-base interface accepts, written from the service's own
 * statements about it, not from the node: the emulator is the authority a
 * test holds the node to, so a limit the node gets wrong is refused here.
 */

/** Longest knowledge base name: the service accepts names of at most 255 characters. */
export const MAX_KNOWLEDGE_NAME_LENGTH = 255;

/** Longest name of an uploaded file: the service accepts file names of at most 255 characters. */
export const MAX_FILE_NAME_LENGTH = 255;

/**
 * Largest upload: the service accepts at most 100 MB and answers 413 beyond.
 * Read as 100 × 1024 × 1024 bytes, the larger reading of "MB", so the emulator
 * never refuses a file the service may take.
 */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/**
 * The upload types the service supports, as it names them: text/csv, text/xml,
 * text/html, application/pdf, application/rtf, application/xml,
 * application/msword, application/vnd.ms-powerpoint, application/vnd.ms-excel,
 * and the OOXML word-processing, presentation and spreadsheet types. Any other
 * answers 400 (UnsupportedKnowledgeFileTypeError).
 */
export const SUPPORTED_UPLOAD_TYPES: readonly string[] = [
	...['csv', 'xml', 'html'].map((subtype) => `text/${subtype}`),
	...['pdf', 'rtf', 'xml', 'msword', 'vnd.ms-powerpoint', 'vnd.ms-excel'].map((subtype) => `application/${subtype}`),
	...['wordprocessingml.document', 'presentationml.presentation', 'spreadsheetml.sheet'].map(
		(kind) => `application/vnd.openxmlformats-officedocument.${kind}`,
	),
];
