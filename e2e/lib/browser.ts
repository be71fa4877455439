/**
 * Debian's Chromium, headless, driven by playwright-core (no bundled browser:
 * CI installs the `chromium` package). Used by the browser end-to-end suite.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, selectors, type BrowserContext, type Page } from 'playwright-core';

import { OWNER } from '../../testbed/n8n';
import { ROOT } from '../../testbed/root';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Where a failing step leaves its screenshot and page HTML (gitignored). */
export const RESULTS_DIR = path.join(ROOT, 'test-results');

// Without the background-networking flags Chromium keeps dialling Google's
// services, and the closed CI network refuses those connections noisily.
const ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

export interface Chromium {
	context: BrowserContext;
	page: Page;
	close(): Promise<void>;
}

/** A fresh Chromium with a new, empty profile and one page of the given size. */
export async function launchChromium(viewport = { width: 1440, height: 900 }): Promise<Chromium> {
	if (!existsSync(CHROMIUM_PATH)) {
		throw new Error(`no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`);
	}
	const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'workplace-chromium-'));
	const context = await chromium.launchPersistentContext(userDataDir, {
		executablePath: CHROMIUM_PATH,
		headless: true,
		args: ARGS,
		viewport,
		timeout: 120_000,
	});
	const page = context.pages()[0] ?? (await context.newPage());
	return {
		context,
		page,
		async close() {
			await context.close().catch(() => undefined);
			rmSync(userDataDir, { recursive: true, force: true });
		},
	};
}

/** Saves a screenshot and the page's HTML under test-results/ for a failed step. */
export async function saveFailureArtifacts(page: Page, name: string): Promise<string> {
	mkdirSync(RESULTS_DIR, { recursive: true });
	const base = path.join(RESULTS_DIR, name.replace(/[^\w.-]+/g, '-'));
	await page.screenshot({ path: `${base}.png`, fullPage: true }).catch(() => undefined);
	const html = await page.content().catch((error: unknown) => `page.content() failed: ${String(error)}`);
	writeFileSync(`${base}.html`, html);
	return base;
}

/** Runs a step; when it throws, leaves the page's screenshot and HTML behind before rethrowing. */
export async function step<T>(page: Page, name: string, run: () => Promise<T>): Promise<T> {
	try {
		return await run();
	} catch (error) {
		const base = await saveFailureArtifacts(page, name);
		if (error instanceof Error) error.message += `\n(page saved to ${base}.png / .html)`;
		throw error;
	}
}

/** Closes first-run dialogs if any show up (survey, what's new, …); they vary between versions. */
export async function dismissDialogs(page: Page): Promise<void> {
	const closers = page.locator('.el-dialog:visible .el-dialog__headerbtn, [role="dialog"]:visible button[aria-label="Close"]');
	for (let i = 0; i < 5 && (await closers.count()) > 0; i++) {
		await closers.first().click().catch(() => undefined);
		await page
			.locator('.el-dialog:visible, [role="dialog"]:visible')
			.first()
			.waitFor({ state: 'hidden', timeout: 5_000 })
			.catch(() => undefined);
	}
}

/**
 * Signs the owner in through n8n's sign-in form, as a person does, and closes
 * the first-run dialogs. n8n's editor marks its elements with data-test-id.
 */
export async function signInToEditor(page: Page, n8nUrl: string): Promise<void> {
	selectors.setTestIdAttribute('data-test-id');
	await page.goto(`${n8nUrl}/signin`);
	await page.getByTestId('emailOrLdapLoginId').locator('input').fill(OWNER.email);
	await page.getByTestId('password').locator('input').fill(OWNER.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((address) => !address.pathname.startsWith('/signin'));
	await dismissDialogs(page);
}
