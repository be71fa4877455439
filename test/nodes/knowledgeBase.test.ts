/**
 * Knowledge Base resource, executed in n8n-core's real engine against the
 * emulator over HTTP on 127.0.0.1.
 */
import { redactedHeader } from '../../emulator/common/requestLog';
import { CREDENTIALS, suiteTestbed } from '../../testbed/testbed';
import { byId } from '../../testbed/locator';

const bed = suiteTestbed({ emulator: { paginationMode: 'strapi', deleteResponse: 'empty' } });

const kbRequests = (method?: string) =>
	bed.emulator.log.filter((e) => e.path.startsWith('/api/v1/knowledge') && (!method || e.method === method));


describe('Knowledge Base → Create', () => {
	it('sends every field as the document defines it and outputs the new knowledge base', async () => {
		const run = await bed.runNode({
			resource: 'knowledgeBase',
			operation: 'create',
			name: 'Onboarding',
			source: 'internal',
			supportedLanguages: ['en', 'th'],
			createFulfillment: false,
		});
		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(1);
		expect(run.json[0]).toMatchObject({ name: 'Onboarding', source: 'internal', supportedLanguages: ['en', 'th'] });
		expect(typeof run.json[0].id).toBe('number');
		expect(run.items[0].pairedItem).toEqual({ item: 0 });

		const [sent] = kbRequests('POST');
		// No target for an internal base: it defaults to empty, and a service checking a target it is sent would refuse an empty one.
		expect(sent.body).toEqual({
			name: 'Onboarding',
			source: 'internal',
			supportedLanguages: ['en', 'th'],
			createFulfillment: false,
		});
		expect(run.json[0].target).toBe('');
		expect(sent.headers['x-api-key']).toBe(redactedHeader('x-api-key', bed.emulator.credentials.apiKey));
		expect(bed.emulator.knowledge.bases.get(run.json[0].id as number)?.name).toBe('Onboarding');
	});

	it('sends the target of an external knowledge base', async () => {
		const run = await bed.runNode({
			resource: 'knowledgeBase',
			operation: 'create',
			name: 'Partner',
			source: 'external',
			target: 'https://search.partner.example/api',
			supportedLanguages: ['en'],
		});
		expect(run.error).toBeUndefined();
		expect(kbRequests('POST')[0].body).toMatchObject({
			source: 'external',
			target: 'https://search.partner.example/api',
			createFulfillment: true,
		});
	});

	it.each([
		['a blank name', { name: '   ' }, /"Name" in item 0: is required/],
		['a name over 255 characters', { name: 'x'.repeat(256) }, /"Name" in item 0: must be at most 255 characters \(got 256\)/],
		['an external source whose target expression is empty', { source: 'external', target: '={{ "" }}' }, /"Target" in item 0: is required/],
		['no language from an expression', { supportedLanguages: '={{ [] }}' }, /"Supported Languages" in item 0: choose at least one of en, th/],
		['an unknown language', { supportedLanguages: '={{ ["en", "fr"] }}' }, /"Supported Languages" in item 0: "fr" is not one of en, th/],
	])('rejects %s before any request', async (_label, override, message) => {
		const run = await bed.runNode({
			resource: 'knowledgeBase',
			operation: 'create',
			name: 'Valid name',
			source: 'internal',
			supportedLanguages: ['en'],
			...override,
		});
		expect(run.error?.message).toMatch(message);
		expect(run.error?.name).toBe('NodeOperationError');
		expect(kbRequests()).toHaveLength(0);
	});

	it('shows a 422 from the service with each field detail', async () => {
		bed.emulator.faults.add({
			method: 'POST',
			path: '/api/v1/knowledge',
			action: {
				kind: 'status',
				status: 422,
				body: {
					name: 'UnprocessableEntityException',
					code: 422001,
					status: 422,
					message: 'Validation failed',
					errors: [
						{ type: 'string.max', field: 'name', value: 'x', message: 'name must be shorter' },
						{ type: 'any.only', field: 'supportedLanguages[0]', value: 'fr', message: 'must be en or th' },
					],
				},
			},
		});
		const run = await bed.runNode({
			resource: 'knowledgeBase',
			operation: 'create',
			name: 'Fine locally',
			source: 'internal',
			supportedLanguages: ['en'],
		});
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.message).toBe('The service rejected the values sent: Validation failed');
		expect(run.error?.description).toContain('name: name must be shorter');
		expect(run.error?.description).toContain('supportedLanguages[0]: must be en or th');
		expect(run.error?.description).toContain('Service code: 422001');
		expect(run.error?.httpCode).toBe('422');
	});

	it('reports a wrong API key as a 401 that names the likely causes, without the key', async () => {
		bed.credentialsHelper.set({
			...CREDENTIALS.knowledgeBase,
			data: { baseUrl: bed.emulator.url, apiKey: 'wrong-key-123' },
		});
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1) });
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('401');
		expect(run.error?.message).toMatch(/rejected the credentials/);
		expect(run.error?.message).toMatch(/IP address is whitelisted/);
		expect(JSON.stringify(run.result.run.data.resultData)).not.toContain('wrong-key-123');
	});
});

describe('Knowledge Base credential Base URL', () => {
	it.each([
		['workplace.example.com', /Base URL has no scheme/],
		['file:///etc/passwd', /Base URL must start with http:\/\/ or https:\/\//],
		[`http://127.0.0.1:1/#x`, /Base URL must not contain "\?" or "#"/],
	])('refuses %p before any request', async (baseUrl, message) => {
		bed.credentialsHelper.set({ ...CREDENTIALS.knowledgeBase, data: { baseUrl, apiKey: bed.emulator.credentials.apiKey } });
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1) });
		expect(run.error?.name).toBe('NodeOperationError');
		expect(run.error?.message).toMatch(message);
		expect(kbRequests()).toHaveLength(0);
	});

	it('drops trailing slashes of the Base URL', async () => {
		bed.credentialsHelper.set({
			...CREDENTIALS.knowledgeBase,
			data: { baseUrl: `${bed.emulator.url}///`, apiKey: bed.emulator.credentials.apiKey },
		});
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1) });
		expect(run.error).toBeUndefined();
		expect(kbRequests()[0].path).toBe('/api/v1/knowledge/1');
	});
});

describe('Knowledge Base → Get', () => {
	it('gets a knowledge base by id', async () => {
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(1) });
		expect(run.error).toBeUndefined();
		expect(run.json[0]).toMatchObject({ id: 1, name: 'Employee Handbook' });
		expect(kbRequests('GET')[0].path).toBe('/api/v1/knowledge/1');
	});

	it('accepts a value picked from the list', async () => {
		const run = await bed.runNode({
			resource: 'knowledgeBase',
			operation: 'get',
			knowledgeId: { __rl: true, mode: 'list', value: '2', cachedResultName: 'Product FAQ (2)' },
		});
		expect(run.json[0]).toMatchObject({ id: 2 });
	});

	it('turns a 404 into a NodeApiError with the service message', async () => {
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId(999) });
		expect(run.error?.name).toBe('NodeApiError');
		expect(run.error?.httpCode).toBe('404');
		expect(run.error?.message).toMatch(/^Not found: /);
		expect(run.error?.description).toContain('Service code: 404001');
	});

	it.each(['1/../2', '..', '1?x=1', '1#frag', 'abc', '-3', '0', '1.5', ' '])(
		'rejects the id %p from upstream data, so it never reaches the request path',
		async (id) => {
			const run = await bed.runNode(
				{ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}') },
				{ items: [{ json: { id } }] },
			);
			expect(run.error?.name).toBe('NodeOperationError');
			expect(run.error?.message).toMatch(/"Knowledge Base" in item 0: (must be a positive whole number|is required)/);
			expect(kbRequests()).toHaveLength(0);
		},
	);

	it('is stopped by n8n itself when a typed id fails the ID mode\'s pattern', async () => {
		await expect(
			bed.runNode({ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('1/../2') }),
		).rejects.toThrow(/A knowledge base ID is a positive whole number/);
		expect(kbRequests()).toHaveLength(0);
	});
});

describe('Knowledge Base → Delete', () => {
	it('outputs a useful item when the confirmation body is empty', async () => {
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'delete', knowledgeId: byId(3) });
		expect(run.error).toBeUndefined();
		expect(run.json).toEqual([{ id: 3, deleted: true }]);
		expect(kbRequests('DELETE')[0].status).toBe(204);
		expect(bed.emulator.knowledge.bases.has(3)).toBe(false);
	});

	it('keeps the fields of a JSON confirmation', async () => {
		bed.emulator.setConfig({ deleteResponse: 'json' });
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'delete', knowledgeId: byId(2) });
		expect(run.json[0]).toMatchObject({ id: 2, deleted: true });
	});
});

describe('Knowledge Base → Get Many', () => {
	const pageRequests = () =>
		kbRequests('GET')
			.filter((e) => e.path === '/api/v1/knowledge')
			.map((e) => `${String(e.query['pagination[page]'])}/${String(e.query['pagination[pageSize]'])}`);

	it('returns all across 3 pages, requesting each page once', async () => {
		bed.emulator.knowledge.addKnowledgeBases(247); // 3 seeded + 247 = 250
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'getAll', returnAll: true });
		expect(run.error).toBeUndefined();
		expect(run.json).toHaveLength(250);
		expect(new Set(run.json.map((kb) => kb.id)).size).toBe(250);
		expect(pageRequests()).toEqual(['1/100', '2/100', '3/100']);
		expect(run.items.every((i) => JSON.stringify(i.pairedItem) === '{"item":0}')).toBe(true);
	});

	it('stops paging once the limit is reached', async () => {
		bed.emulator.knowledge.addKnowledgeBases(247);
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'getAll', returnAll: false, limit: 120 });
		expect(run.json).toHaveLength(120);
		expect(pageRequests()).toEqual(['1/100', '2/100']);
	});

	it('without pagination metadata, goes on past a short page and ends on an empty one (a short page may be a cap)', async () => {
		bed.emulator.setConfig({ paginationMode: 'none' });
		bed.emulator.knowledge.addKnowledgeBases(147);
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'getAll', returnAll: true });
		expect(run.json).toHaveLength(150);
		expect(pageRequests()).toEqual(['1/100', '2/100', '3/100']);
	});

	it('does not follow metadata that claims more pages than exist', async () => {
		bed.emulator.setConfig({ paginationMode: 'inconsistent' });
		bed.emulator.knowledge.addKnowledgeBases(197); // exactly 2 full pages
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'getAll', returnAll: true });
		expect(run.json).toHaveLength(200);
		expect(pageRequests()).toEqual(['1/100', '2/100', '3/100']);
	});

	it('rejects a limit below 1 before any request', async () => {
		const run = await bed.runNode({ resource: 'knowledgeBase', operation: 'getAll', returnAll: false, limit: 0 });
		expect(run.error?.message).toMatch(/"Limit" in item 0/);
		expect(kbRequests()).toHaveLength(0);
	});
});

describe('Continue On Fail', () => {
	it('returns an error item paired to each failed input and keeps the others', async () => {
		const run = await bed.runNode(
			{ resource: 'knowledgeBase', operation: 'get', knowledgeId: byId('={{ $json.id }}') },
			{
				continueOnFail: true,
				items: [{ json: { id: 1 } }, { json: { id: 'x/y' } }, { json: { id: 404 } }, { json: { id: 2 } }],
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(run.json[0]).toMatchObject({ id: 1 });
		expect(run.json[1].error).toMatch(/"Knowledge Base" in item 1/);
		expect(run.json[2]).toMatchObject({ httpCode: '404' });
		expect(String(run.json[2].error)).toMatch(/^Not found/);
		expect(run.json[3]).toMatchObject({ id: 2 });
		// The bad id was never sent; the three others were.
		expect(kbRequests().map((e) => e.path)).toEqual([
			'/api/v1/knowledge/1',
			'/api/v1/knowledge/404',
			'/api/v1/knowledge/2',
		]);
	});
});

describe('Knowledge Base list search (resource locator)', () => {
	const search = (filter?: string, token?: string) =>
		bed.listSearch('searchKnowledgeBases', { resource: 'knowledgeBase', operation: 'get' }, filter, token);

	it('lists knowledge bases by name and id', async () => {
		const result = await search();
		expect(result.results).toEqual([
			{ name: 'Employee Handbook (1)', value: '1' },
			{ name: 'Product FAQ (2)', value: '2' },
			{ name: 'Partner Search (3)', value: '3' },
		]);
		expect(result.paginationToken).toBeUndefined();
	});

	it('filters by name, case-insensitively, or by id', async () => {
		expect((await search('faq')).results.map((r) => r.value)).toEqual(['2']);
		expect((await search('3')).results.map((r) => r.value)).toEqual(['3']);
	});

	it('pages with a token while more pages exist', async () => {
		bed.emulator.knowledge.addKnowledgeBases(150);
		const first = await search();
		expect(first.results).toHaveLength(100);
		expect(first.paginationToken).toMatch(/^2:/);
		const second = await search(undefined, first.paginationToken);
		expect(second.results).toHaveLength(53);
		expect(second.paginationToken).toBeUndefined();
	});
});

describe('Knowledge Base credential', () => {
	it('passes its test against the service', async () => {
		await expect(bed.testCredential(CREDENTIALS.knowledgeBase.id)).resolves.toMatchObject({ status: 'OK' });
		expect(kbRequests('GET')[0].headers['x-api-key']).toBe(redactedHeader('x-api-key', bed.emulator.credentials.apiKey));
	});

	it('fails its test with a wrong key', async () => {
		bed.credentialsHelper.set({
			...CREDENTIALS.knowledgeBase,
			data: { baseUrl: bed.emulator.url, apiKey: 'not-the-key' },
		});
		await expect(bed.testCredential(CREDENTIALS.knowledgeBase.id)).resolves.toMatchObject({ status: 'Error' });
	});
});
