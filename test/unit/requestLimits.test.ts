/**
 * The request path's limits (shared/transport/limits.ts) as tables, and its
 * parts on their own: the deadline (deadline.ts), the bounded readers and the
 * counter's size limit (body.ts). The engine runs them against a hostile
 * service in test/reliability/hostileService.test.ts.
 */
import { PassThrough, Readable } from 'node:stream';

import { AnswerTooLarge, ByteCounter, readErrorBody, readJsonBody, type BinaryStream } from '../../shared/transport/body';
import { Deadline, DeadlinePassed } from '../../shared/transport/deadline';
import {
	attemptTimeMs,
	contentLength,
	ERROR_BODY_BYTES,
	listCapReached,
	MAX_JSON_BYTES,
	MAX_LIST_ITEMS,
	MAX_LIST_PAGES,
	pastLimit,
	sizeText,
} from '../../shared/transport/limits';
import { maxDownloadBytes } from '../../shared/maxDownloadSize';

const MiB = 1024 * 1024;

describe('attemptTimeMs: the Timeout, plus a second for every 64 KB of a file', () => {
	it.each([
		['no file', 60_000, 0, 60_000],
		['one byte adds next to nothing (a millisecond, rounded up)', 2_000, 1, 2_001],
		['64 KB adds a second', 2_000, 64 * 1024, 3_000],
		['a 100 MB upload or download adds 1,600 s', 60_000, 100 * MiB, 1_660_000],
		['a negative count adds nothing', 1_000, -5, 1_000],
	])('%s', (_label, timeout, bytes, expected) => {
		expect(attemptTimeMs(timeout, bytes)).toBe(expected);
	});
});

describe('pastLimit: announced or received', () => {
	it.each<[string, { announced?: number; received?: number }, ReturnType<typeof pastLimit>]>([
		['nothing known', {}, undefined],
		['announced at the limit', { announced: 100 }, undefined],
		['announced past it: refused before reading', { announced: 101 }, 'announced'],
		['received at the limit', { received: 100 }, undefined],
		['received past it', { received: 101 }, 'received'],
		['announced within, received past (the Content-Length lied)', { announced: 50, received: 150 }, 'received'],
	])('%s', (_label, size, expected) => {
		expect(pastLimit(100, size)).toBe(expected);
	});
});

describe('listCapReached: before a page is read', () => {
	it.each<[string, { page: number; received: number }, ReturnType<typeof listCapReached>]>([
		['the first page', { page: 1, received: 0 }, undefined],
		['the last page allowed', { page: MAX_LIST_PAGES, received: MAX_LIST_ITEMS - 1 }, undefined],
		['one page past', { page: MAX_LIST_PAGES + 1, received: 10 }, { pages: MAX_LIST_PAGES }],
		['the items read already at the cap', { page: 1001, received: MAX_LIST_ITEMS }, { items: MAX_LIST_ITEMS }],
		['both: the items are named', { page: MAX_LIST_PAGES + 1, received: MAX_LIST_ITEMS }, { items: MAX_LIST_ITEMS }],
	])('%s', (_label, at, expected) => {
		expect(listCapReached(at)).toEqual(expected);
	});
});

describe('contentLength and sizeText', () => {
	it.each<[string, Record<string, unknown>, number | undefined]>([
		['digits', { 'content-length': '1234' }, 1234],
		['padded digits', { 'content-length': ' 7 ' }, 7],
		['absent', {}, undefined],
		['not digits', { 'content-length': '12abc' }, undefined],
		['negative', { 'content-length': '-1' }, undefined],
		['two values', { 'content-length': ['1', '2'] }, undefined],
		['beyond exact integers', { 'content-length': '99999999999999999999' }, undefined],
	])('Content-Length: %s', (_label, headers, expected) => {
		expect(contentLength(headers)).toBe(expected);
	});

	it.each([
		[16 * MiB, '16 MB'],
		[150 * MiB, '150 MB'],
		[1.5 * MiB, '1.5 MB'],
		[64 * 1024, '64 KB'],
		[1234, '1,234 bytes'],
	])('%i bytes read as %s', (bytes, text) => {
		expect(sizeText(bytes)).toBe(text);
	});
});

describe('Max Download Size read as bytes', () => {
	it.each<[unknown, ReturnType<typeof maxDownloadBytes>]>([
		[undefined, 100 * MiB],
		['', 100 * MiB],
		[100, 100 * MiB],
		['2', 2 * MiB],
		[1.5, 1.5 * MiB],
		[0, { problem: 'must be between 1 and 10240 MB (got 0)' }],
		[20_000, { problem: 'must be between 1 and 10240 MB (got 20000)' }],
		['lots', { problem: 'expected a number of MB, got "lots"' }],
	])('%p', (value, expected) => {
		expect(maxDownloadBytes(value)).toEqual(expected);
	});
});

describe('Deadline', () => {
	it('rejects a pending answer with DeadlinePassed, code ETIMEDOUT, and lets go of what comes after', async () => {
		const deadline = new Deadline(50);
		let late: string | undefined;
		const answer = new Promise<string>((resolve) => AbortSignal.timeout(200).addEventListener('abort', () => resolve('too late')));
		const raced = deadline.race(answer, (value) => (late = value));
		await expect(raced).rejects.toBeInstanceOf(DeadlinePassed);
		await expect(raced).rejects.toMatchObject({ code: 'ETIMEDOUT' });
		await answer;
		await Promise.resolve();
		expect(late).toBe('too late');
	});

	it('hands on what comes in time, and ends a guarded stream when it passes', async () => {
		const deadline = new Deadline(50);
		await expect(deadline.race(Promise.resolve('in time'), () => undefined)).resolves.toBe('in time');
		const stream = new PassThrough();
		deadline.guard(stream);
		const ended = new Promise<unknown>((resolve) => stream.once('error', resolve));
		expect(await ended).toBeInstanceOf(DeadlinePassed);
		expect(deadline.passed).toBe(true);
	});

	it('moves on as a file\'s bytes arrive, and stops counting once released', async () => {
		const moving = new Deadline(50);
		moving.moved(64 * 1024);
		await new Promise<void>((resolve) => AbortSignal.timeout(150).addEventListener('abort', () => resolve()));
		expect(moving.passed).toBe(false);
		const released = new Deadline(20);
		released.release();
		await new Promise<void>((resolve) => AbortSignal.timeout(80).addEventListener('abort', () => resolve()));
		expect(released.passed).toBe(false);
	});
});

const streamOf = (...chunks: Buffer[]) => Readable.from(chunks) as BinaryStream;

describe('bounded readers', () => {
	it('reads a JSON answer whole and parses it; text that is not JSON stays text', async () => {
		expect(await readJsonBody(streamOf(Buffer.from('{"data":'), Buffer.from('[1]}')), new Deadline(5000))).toEqual({ data: [1] });
		expect(await readJsonBody(streamOf(Buffer.from('<html>sign in</html>')), new Deadline(5000))).toBe('<html>sign in</html>');
		expect(await readJsonBody(streamOf(), new Deadline(5000))).toBe('');
	});

	it('stops a JSON answer past MAX_JSON_BYTES, reading no further, and lets go of its source', async () => {
		const source = new PassThrough();
		const reading = readJsonBody(source as unknown as BinaryStream, new Deadline(5000));
		source.write(Buffer.alloc(MAX_JSON_BYTES, ' '));
		source.write(Buffer.from(' '));
		await expect(reading).rejects.toEqual(new AnswerTooLarge(MAX_JSON_BYTES));
		expect(source.destroyed).toBe(true);
	});

	it('reads an error answer only as far as it is shown, and keeps what came when it breaks off', async () => {
		const long = await readErrorBody(streamOf(Buffer.alloc(ERROR_BODY_BYTES + 10, 'x')), new Deadline(5000));
		expect(long).toBe('x'.repeat(ERROR_BODY_BYTES));
		const source = new PassThrough();
		const reading = readErrorBody(source as unknown as BinaryStream, new Deadline(5000));
		source.write(Buffer.from('{"message":"half'));
		// Reset once the half has been read, as a connection that breaks off later.
		setImmediate(() => source.destroy(Object.assign(new Error('reset'), { code: 'ECONNRESET' })));
		expect(await reading).toBe('{"message":"half');
	});

	it('a JSON answer still coming at the deadline fails as DeadlinePassed', async () => {
		const source = new PassThrough();
		source.write(Buffer.from('{"data":'));
		await expect(readJsonBody(source as unknown as BinaryStream, new Deadline(50))).rejects.toBeInstanceOf(DeadlinePassed);
		expect(source.destroyed).toBe(true);
	});
});

describe('ByteCounter with a size limit', () => {
	const fail = (received: number, expected: number | undefined) => new Error(`short: ${received}/${String(expected)}`);
	const tooLarge = (limit: number) => new Error(`past ${limit}`);

	it('fails as soon as a body goes past its limit and lets go of the source', async () => {
		const source = new PassThrough();
		source.write(Buffer.alloc(8));
		source.write(Buffer.alloc(8));
		const counter = new ByteCounter(undefined, fail, { bytes: 10, fail: tooLarge });
		const drained = (async () => {
			for await (const chunk of counter.pass(source)) void chunk;
		})();
		await expect(drained).rejects.toThrow('past 10');
		expect(counter.failure?.message).toBe('past 10');
		expect(source.destroyed).toBe(true);
	});

	it('passes a body at its limit', async () => {
		const counter = new ByteCounter(10, fail, { bytes: 10, fail: tooLarge });
		for await (const chunk of counter.pass(Readable.from([Buffer.alloc(10)]))) void chunk;
		expect(counter.bytes).toBe(10);
		expect(counter.sha256).toBeDefined();
	});
});
