import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { SCREENSHOTS_TO_DOCS } from '../helpers/env.js';

/** Debian's chromium (`apt-get install -y chromium`); .ci/run installs it. No browser is downloaded. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Screenshots go here: test-results/ is in .gitignore. */
export const SCREENSHOT_DIR = join(import.meta.dirname, '..', '..', 'test-results', 'playground');

/**
 * Headless Chromium. When it cannot start, this throws, and the test fails: a browser test that skips
 * itself when the browser is missing would pass in a CI that never ran it.
 */
export async function launchChromium(): Promise<Browser> {
  try {
    return await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  } catch (error) {
    throw new Error(
      `Chromium could not start from ${CHROMIUM_PATH} (install it with: apt-get install -y chromium): ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
}

/**
 * `SCREENSHOTS=docs` also writes the README's screenshots into docs/. CI never sets it, so a test run never
 * changes a tracked file. The only place the tests read this variable.
 */
const DOCS_DIR = SCREENSHOTS_TO_DOCS ? join(import.meta.dirname, '..', '..', 'docs') : null;

/**
 * A screenshot of what the page shows now (the viewport), for the README: always into test-results/, and into
 * docs/ when asked. Unlike `screenshot`, a failure to take or write it fails the test.
 */
export async function documentationScreenshot(
  page: Page,
  name: string,
): Promise<{ png: Buffer; paths: string[] }> {
  const png = await page.screenshot({ fullPage: false, animations: 'disabled', caret: 'hide' });
  const dirs = DOCS_DIR === null ? [SCREENSHOT_DIR] : [SCREENSHOT_DIR, DOCS_DIR];
  const paths: string[] = [];
  for (const dir of dirs) {
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${name}.png`);
    await writeFile(path, png);
    paths.push(path);
  }
  return { png, paths };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, '-').slice(0, 80)}.png`);
  await page.screenshot({ path, fullPage: true }).catch(() => undefined);
  return path;
}

/** The newest message of the page whose text holds `text`. */
export function messageWith(page: Page, text: string | RegExp): Locator {
  return page.locator('article.message', { hasText: text }).last();
}

/** Types a slash command in the message box and sends it with Enter, as a person would. */
export async function typeCommand(page: Page, line: string): Promise<void> {
  const box = page.getByRole('textbox', { name: 'Mensagem para o canal' });
  await box.fill(line);
  await box.press('Enter');
}

/** What a person reads in the element: the rendered text, with its line breaks and without hidden parts. */
export function visibleText(locator: Locator): Promise<string> {
  return locator.innerText();
}
