/**
 * Seed data and small, valid fixture files. Tests import the fixture builders
 * to upload realistic content (a PDF that PDF readers accept, a CSV, ...).
 */
import type { KnowledgeState } from './knowledgeState';

/** A one-page PDF with a correct xref table, showing `text`. */
export function minimalPdf(text = 'Hello from the knowledge base emulator'): Buffer {
	const escaped = text.replace(/[\\()]/g, (c) => '\\' + c);
	const stream = `BT /F1 18 Tf 72 720 Td (${escaped}) Tj ET`;
	const objects = [
		'<< /Type /Catalog /Pages 2 0 R >>',
		'<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
		'<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
		`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
		'<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
	];
	let out = '%PDF-1.4\n';
	const offsets: number[] = [];
	objects.forEach((body, i) => {
		offsets.push(Buffer.byteLength(out, 'latin1'));
		out += `${i + 1} 0 obj\n${body}\nendobj\n`;
	});
	const xrefAt = Buffer.byteLength(out, 'latin1');
	// Each xref entry is exactly 20 bytes: 10-digit offset, 5-digit generation, type, space, LF.
	out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const off of offsets) out += `${String(off).padStart(10, '0')} 00000 n \n`;
	out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
	return Buffer.from(out, 'latin1');
}

export function sampleCsv(): Buffer {
	return Buffer.from('question,answer\nHow many leave days?,15 per year\nWho approves leave?,Your manager\n', 'utf8');
}

export function sampleHtml(): Buffer {
	return Buffer.from('<!doctype html><html><head><meta charset="utf-8"><title>Benefits</title></head><body><h1>Benefits</h1><p>Health insurance for all staff.</p></body></html>\n', 'utf8');
}

export function sampleXml(): Buffer {
	return Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<policies><policy id="1">Remote work twice a week</policy></policies>\n', 'utf8');
}

/** Bytes typed as DOCX: a zip local-file signature then text (enough for type sniffers). */
export function sampleDocx(): Buffer {
	return Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('word/document.xml Code of conduct', 'utf8')]);
}

export const MIME = {
	pdf: 'application/pdf',
	csv: 'text/csv',
	html: 'text/html',
	xml: 'text/xml',
	docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
} as const;

export const PARTNER_TARGET = 'https://search.partner.example/api';

/** Fixed seed timestamps so answers are stable across runs. */
function at(day: number, hour = 9): string {
	return new Date(Date.UTC(2024, 0, day, hour, 0, 0)).toISOString();
}

/**
 * Seeds: 1 "Employee Handbook" (internal, en+th, 6 files, one of them deleting),
 * 2 "Product FAQ" (internal, en, 2 files), 3 "Partner Search" (external, no files).
 */
export function seedKnowledge(state: KnowledgeState): void {
	const handbook = state.createBase({ name: 'Employee Handbook', source: 'internal', supportedLanguages: ['en', 'th'], createdAt: at(10) });
	const faq = state.createBase({ name: 'Product FAQ', source: 'internal', supportedLanguages: ['en'], createdAt: at(11) });
	state.createBase({ name: 'Partner Search', source: 'external', target: PARTNER_TARGET, supportedLanguages: ['en'], createdAt: at(12) });

	const h = handbook.id;
	state.addFile(h, { originalName: 'handbook.pdf', mimetype: MIME.pdf, content: minimalPdf('Employee Handbook'), createdAt: at(10, 10) });
	state.addFile(h, { originalName: 'leave-policy.csv', mimetype: MIME.csv, content: sampleCsv(), createdAt: at(10, 11) });
	state.addFile(h, { originalName: 'benefits.html', mimetype: MIME.html, content: sampleHtml(), createdAt: at(10, 12) });
	state.addFile(h, { originalName: 'policies.xml', mimetype: MIME.xml, content: sampleXml(), createdAt: at(10, 13) });
	state.addFile(h, { originalName: 'code-of-conduct.docx', mimetype: MIME.docx, content: sampleDocx(), createdAt: at(10, 14) });
	state.addFile(h, { originalName: 'old-travel-policy.pdf', mimetype: MIME.pdf, content: minimalPdf('Old travel policy'), status: 'deleting', createdAt: at(10, 15) });

	state.addFile(faq.id, { originalName: 'faq.csv', mimetype: MIME.csv, content: Buffer.from('question,answer\nDoes it sync offline?,Yes\n'), createdAt: at(11, 10) });
	state.addFile(faq.id, { originalName: 'Product FAQ – ภาษาไทย.pdf', mimetype: MIME.pdf, content: minimalPdf('Product FAQ'), createdAt: at(11, 11) });
}
