/**
 * Seed data and small, valid fixture files. Tests import the fixture builders
 * to upload realistic content (a PDF that PDF readers accept, a CSV, ...).
 */

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
