/**
 * The transport's ByteCounter on its own: what it does with bodies that end short,
 * run long, break off, or arrive whole, and that it lets go of a source its
 * reader gives up on. Sources are Node streams and web streams, the two
 * things it counts (responses, and binaries read from n8n's store).
 */
import { createHash } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';

import { ByteCounter } from '../../shared/transport';

const fail = (received: number, expected: number | undefined, cause?: string) =>
	new Error(`short: ${received}/${String(expected)}${cause ? ` (${cause})` : ''}`);

async function drain(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
	const out: Buffer[] = [];
	for await (const chunk of chunks) out.push(Buffer.from(chunk));
	return Buffer.concat(out);
}

describe('ByteCounter', () => {
	it('passes a whole body through, counting and hashing it', async () => {
		const body = Buffer.from('x'.repeat(70_000));
		const counter = new ByteCounter(body.length, fail);
		expect(await drain(counter.pass(Readable.from([body.subarray(0, 1000), body.subarray(1000)])))).toEqual(body);
		expect(counter.bytes).toBe(body.length);
		expect(counter.sha256).toBe(createHash('sha256').update(body).digest('hex'));
	});

	it('counts a web stream the same way', async () => {
		const body = Buffer.from('web stream body');
		const counter = new ByteCounter(undefined, fail);
		expect(await drain(counter.pass(ReadableStream.from([body.subarray(0, 3), body.subarray(3)])))).toEqual(body);
		expect(counter.sha256).toBe(createHash('sha256').update(body).digest('hex'));
	});

	it('fails a body that ends cleanly before its announced length', async () => {
		const counter = new ByteCounter(100, fail);
		await expect(drain(counter.pass(Readable.from([Buffer.alloc(40)])))).rejects.toThrow('short: 40/100');
		expect(counter.sha256).toBeUndefined();
	});

	it('fails a body longer than announced, and lets go of its source', async () => {
		const source = new PassThrough();
		source.write(Buffer.alloc(11));
		const counter = new ByteCounter(10, fail);
		await expect(drain(counter.pass(source))).rejects.toThrow('short: 11/10 (more bytes than announced)');
		expect(source.destroyed).toBe(true);
	});

	it('fails with the cause when the source breaks off', async () => {
		const source = new PassThrough();
		source.write(Buffer.alloc(5));
		setImmediate(() => source.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
		await expect(drain(new ByteCounter(undefined, fail).pass(source))).rejects.toThrow('short: 5/undefined (ECONNRESET)');
	});

	it('lets go of the source when the reader gives up', async () => {
		const source = new PassThrough();
		source.write(Buffer.alloc(5));
		const passing = new ByteCounter(1000, fail).pass(source);
		await passing.next();
		await passing.return(undefined);
		expect(source.destroyed).toBe(true);
	});
});
