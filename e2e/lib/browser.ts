/**
 * Debian's Chromium, headless, driven by playwright-core (no bundled browser:
 * CI installs the `chromium` package). Used by the browser end-to-end suite.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, selectors, type BrowserContext, type Locator, type Page } from 'playwright-core';

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

/**
 * Texts the panel shows cut short: a label or hint ending in an ellipsis because
 * it overflows its box, or an empty field's placeholder wider than the field.
 */
export async function cutOff(scope: Locator): Promise<string[]> {
	return await scope.evaluate((root) => {
		interface Shown {
			children: { length: number };
			textContent: string | null;
			scrollWidth: number;
			clientWidth: number;
			offsetParent: unknown;
			tagName: string;
			placeholder?: string;
			value?: string;
		}
		interface Style {
			textOverflow: string;
			font: string;
			paddingLeft: string;
			paddingRight: string;
		}
		const browser = globalThis as unknown as {
			getComputedStyle(element: Shown): Style;
			document: { createElement(tag: 'canvas'): { getContext(kind: '2d'): { font: string; measureText(text: string): { width: number } } } };
		};
		const measure = browser.document.createElement('canvas').getContext('2d');
		const cut: string[] = [];
		for (const element of (root as unknown as { querySelectorAll(selector: string): Iterable<Shown> }).querySelectorAll('*')) {
			if (element.offsetParent === null) continue;
			const style = browser.getComputedStyle(element);
			const text = (element.textContent ?? '').trim();
			if (element.children.length === 0 && text !== '' && style.textOverflow === 'ellipsis' && element.scrollWidth > element.clientWidth + 1) cut.push(text);
			if (element.tagName === 'INPUT' && element.placeholder && !element.value) {
				measure.font = style.font;
				const room = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
				if (measure.measureText(element.placeholder).width > room + 1) cut.push(element.placeholder);
			}
		}
		return cut;
	});
}
