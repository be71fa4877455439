/**
 * The transport's MeteredBody on its own: what it does with bodies that end
 * short, run long, break off, or arrive whole.
 */
import { createHash } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';

import { MeteredBody } from '../../nodes/Workplace/transport';

const fail = (received: number, expected: number | undefined, cause?: string) =>
	new Error(`short: ${received}/${String(expected)}${cause ? ` (${cause})` : ''}`);

async function drain(stream: Readable): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of stream) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

describe('MeteredBody', () => {
	it('passes a whole body through, counting and hashing it', async () => {
		const body = Buffer.from('x'.repeat(70_000));
		const meter = new MeteredBody(body.length, fail).from(Readable.from([body.subarray(0, 1000), body.subarray(1000)]));
		expect(await drain(meter)).toEqual(body);
		expect(meter.bytes).toBe(body.length);
		expect(meter.sha256).toBe(createHash('sha256').update(body).digest('hex'));
	});

	it('fails a body that ends cleanly before its announced length', async () => {
		const meter = new MeteredBody(100, fail).from(Readable.from([Buffer.alloc(40)]));
		await expect(drain(meter)).rejects.toThrow('short: 40/100');
		expect(meter.sha256).toBeUndefined();
	});

	it('fails a body longer than announced', async () => {
		const meter = new MeteredBody(10, fail).from(Readable.from([Buffer.alloc(11)]));
		await expect(drain(meter)).rejects.toThrow('short: 11/10 (more bytes than announced)');
	});

	it('fails when the source breaks off, even before anyone reads', async () => {
		const source = new PassThrough();
		const meter = new MeteredBody(undefined, fail).from(source);
		meter.on('error', () => undefined);
		source.write(Buffer.alloc(5));
		source.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
		await new Promise((resolve) => setImmediate(resolve));
		await expect(drain(meter)).rejects.toThrow(/short: \d+\/undefined \(ECONNRESET\)/);
	});

	it('lets go of the source when the reader gives up', async () => {
		const source = new PassThrough();
		const meter = new MeteredBody(1000, fail).from(source);
		meter.destroy();
		await new Promise((resolve) => setImmediate(resolve));
		expect(source.destroyed).toBe(true);
	});
});
