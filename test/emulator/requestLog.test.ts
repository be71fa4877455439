/**
 * The request log numbers the TCP connection each request came on, so a test
 * can tell a client that reuses connections (keep-alive) from one that opens a
 * connection per request.
 */
import * as http from 'node:http';
import { emulatorTestbed } from '../../testbed/testbed';

const bed = emulatorTestbed();

function get(path: string, agent: http.Agent): Promise<number> {
	return new Promise((resolve, reject) => {
		const request = http.get(`${bed.emulator.url}${path}`, { agent, headers: { 'x-api-key': bed.emulator.credentials.apiKey } }, (response) => {
			response.resume();
			response.on('end', () => resolve(response.statusCode ?? 0));
		});
		request.on('error', reject);
	});
}

describe('connection numbers in the request log', () => {
	it('repeats a number for requests on a kept-alive connection', async () => {
		const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
		try {
			for (let i = 0; i < 5; i++) expect(await get('/api/v1/knowledge/1', agent)).toBe(200);
		} finally {
			agent.destroy();
		}
		const connections = bed.emulator.log.map((e) => e.connection);
		expect(connections).toHaveLength(5);
		expect(new Set(connections).size).toBe(1);
		expect(connections[0]).toBeGreaterThan(0);
		expect(new Set(bed.emulator.log.map((e) => e.remotePort)).size).toBe(1);
	});

	it('gives each new connection its own number', async () => {
		for (let i = 0; i < 3; i++) {
			const agent = new http.Agent({ keepAlive: false });
			expect(await get('/api/v1/knowledge/1', agent)).toBe(200);
			agent.destroy();
		}
		const connections = bed.emulator.log.map((e) => e.connection);
		expect(new Set(connections).size).toBe(3);
		// In order of first use.
		expect(connections).toEqual([...connections].sort((a, b) => a - b));
	});
});
