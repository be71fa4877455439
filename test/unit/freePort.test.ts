/**
 * freePort (testbed/n8n.ts): a port for a server that starts seconds later
 * must not be one the kernel hands to outgoing connections meanwhile.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

import { freePort } from '../../testbed/n8n';

const [outgoingFrom, outgoingTo] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);

test('hands out ports below the range of outgoing connections, each free to listen on', async () => {
	const ports = [];
	for (let n = 0; n < 20; n++) ports.push(await freePort());
	for (const port of ports) {
		expect(port).toBeGreaterThanOrEqual(10_000);
		expect(port < outgoingFrom || port > outgoingTo).toBe(true);
		const server = createServer();
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(port, resolve);
		});
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
});
