/**
 * `npm run demo`: the package at work without installing n8n. Starts the
 * emulator, loads this package from dist/ as n8n loads a community package, runs
 * every example workflow in n8n-core's engine, and prints what each node output.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { EXAMPLE_ANSWERS, EXAMPLE_EVENTS, exampleCredentials, exampleTrigger, needsAiNodes } from '../testbed/examples';
import { startEmulator } from '../emulator/server';
import {
	InMemoryCredentialsHelper,
	initHarnessEnv,
	loadCommunityPackage,
	removeHarnessFolders,
	resumeWorkflow,
	runWorkflow,
	testCredential,
	type RunWorkflowResult,
	type StoredCredential,
	type WorkflowJson,
} from '../testbed/engine';
import { exitOnInterrupt } from '../testbed/interrupt';
import { startWebhookServer } from '../testbed/webhookServer';
import { ROOT } from '../testbed/root';


function cell(value: unknown, width: number): string {
	const text = Array.isArray(value) ? value.join(',') : String(value ?? '');
	return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

/** One line per output item: its id and the fields a reader looks for first. */
function summary(row: IDataObject): string {
	const id = row.id ?? row._id ?? row.type ?? '';
	const fields = ['name', 'taskTitle', 'dueDate', 'status', 'username', 'source', 'supportedLanguages', 'gid', 'label', 'data', 'userCount', 'endpoint', 'messageCount']
		.filter((key) => row[key] !== undefined && row[key] !== null && row[key] !== '')
		.map((key) => `${key}=${cell(row[key], 28).trim()}`);
	return `${cell(id, 26)} ${fields.join('  ')}`;
}

async function main(): Promise<void> {
	// The harness's user folder and binary store and the emulator's data folder are temporary: removed when the demo ends, or is interrupted (also while they start).
	exitOnInterrupt();
	await initHarnessEnv();
	const emulator = await startEmulator();
	try {
		const { nodeTypes, credentialTypes } = loadCommunityPackage(ROOT);
		const credentials = new InMemoryCredentialsHelper(credentialTypes);
		// The ids the example workflows reference, as after importing them into n8n.
		const stored: StoredCredential[] = exampleCredentials(emulator);
		console.log(`Emulator: ${emulator.url}`);
		for (const credential of stored) {
			credentials.set(credential);
			const test = await testCredential(credentials, credential.id, nodeTypes);
			console.log(`Credential test (${credential.type}): ${test.status} — ${test.message}`);
		}
		console.log('');

		const dir = path.join(ROOT, 'examples');
		let failures = 0;
		/** Prints what each node of one execution output; returns how many nodes failed. */
		const print = (result: RunWorkflowResult): number => {
			let failed = 0;
			for (const name of result.executionOrder) {
				const run = result.nodes[name]?.[0];
				if (!run) continue;
				if (run.error) {
					failed++;
					console.log(`  ✗ ${name}: ${run.error.message}`);
					continue;
				}
				const rows = (run.outputs[0] ?? []).map((i) => i.json as IDataObject);
				console.log(`  ✓ ${name}: ${rows.length} item(s)`);
				for (const row of rows.slice(0, 8)) {
					const line = summary(row);
					if (line.trim()) console.log(`      ${line}`);
				}
			}
			return failed;
		};
		for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
			const workflow = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as WorkflowJson;
			if (needsAiNodes(workflow)) {
				console.log(`Workflow "${workflow.name ?? file}" (examples/${file}): needs n8n's AI nodes, run it in n8n (npm run dev)\n`);
				continue;
			}
			const trigger = exampleTrigger(workflow);
			if (!trigger || workflow.nodes.some((n) => n.type === 'n8n-nodes-base.manualTrigger')) {
				const result = await runWorkflow({ workflow, nodeTypes, credentialsHelper: credentials });
				console.log(`Workflow "${workflow.name ?? file}" (examples/${file}): ${result.status}`);
				failures += print(result);
				// Waiting for a person (Send and Wait): answered as the example's answers say, one run each.
				for (const answer of result.status === 'waiting' ? (EXAMPLE_ANSWERS[file] ?? []) : []) {
					const waiting = await runWorkflow({ workflow, nodeTypes, credentialsHelper: credentials });
					const resumed = await resumeWorkflow({ workflow, nodeTypes, credentialsHelper: credentials, waiting, answer: answer.map((json) => ({ json: json as IDataObject })) });
					console.log(`  answered ${JSON.stringify(answer[0])}: ${resumed.status}`);
					failures += print(resumed);
				}
			}
			if (trigger) {
				// Started by the bot's webhook: the emulator plays a user and delivers signed events to it.
				const server = await startWebhookServer({ workflow, webhookNode: trigger.name, nodeTypes, credentialsHelper: credentials });
				try {
					for (const event of EXAMPLE_EVENTS[file] ?? []) {
						const [delivery] = await emulator.playUser({ url: `${server.url}/webhook/${trigger.webhookId}/webhook`, ...event });
						await server.settled();
						const result = server.executions.at(-1);
						console.log(`Workflow "${workflow.name ?? file}" (examples/${file}), ${event.type} event: webhook ${delivery.status}, ${result?.status ?? 'no execution'}`);
						if (result) failures += print(result);
						else failures++;
					}
				} finally {
					await server.close();
				}
			}
			console.log('');
		}
		console.log(`Requests the emulator answered: ${emulator.log.length}`);
		if (failures > 0) process.exitCode = 1;
	} finally {
		await emulator.close();
		removeHarnessFolders();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
