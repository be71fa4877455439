/**
 * testbed/until.ts, the polling loop of the development code: the value once
 * the check gives one, the deadline's error (the thing waited for, the seconds,
 * the last error), and a process that has exited failing the wait at once with
 * the tail of its output.
 */
import { spawn } from 'child_process';

import { until } from '../../testbed/until';

describe('until', () => {
	it('resolves with the first value that is not undefined; throws count as "not yet"', async () => {
		let calls = 0;
		const value = await until('the third call', () => {
			calls++;
			if (calls === 1) throw new Error('not listening');
			return calls === 3 ? 'ready' : undefined;
		}, 5_000, { everyMs: 1 });
		expect({ value, calls }).toEqual({ value: 'ready', calls: 3 });
	});

	it('at the deadline names what it waited for, the timeout in seconds and the last error', async () => {
		await expect(until('the answer', () => {
			throw new Error('refused');
		}, 50, { everyMs: 10 })).rejects.toThrow('timed out after 0.05 s waiting for the answer: Error: refused');
	});

	it('fails at once, with the tail of its output, when the process waited on has exited', async () => {
		const child = spawn('sh', ['-c', 'echo "port in use"; exit 3']);
		let output = '';
		child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
		await new Promise((resolve) => child.once('close', resolve));
		const started = Date.now();
		await expect(until('the server to answer', () => undefined, 60_000, { process: { name: 'server', child, output: () => output } })).rejects.toThrow(
			'server exited with 3 while waiting for the server to answer:\nport in use',
		);
		expect(Date.now() - started).toBeLessThan(1_000);
	});
});
