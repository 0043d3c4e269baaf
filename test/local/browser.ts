import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, onTestFailed } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { makeLogger } from '../../src/lib/logger.js';
import { type LocalMode, startLocalMode } from '../../src/local/local-mode.js';
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

/**
 * The README's screenshot `name`: the page at README_VIEWPORT once `arrange` (scrolling, waiting) has run, checked to
 * be a PNG of that size, small enough for the README; the viewport is put back after.
 */
export async function readmeScreenshot(
  page: Page,
  name: string,
  arrange: () => Promise<void> = async () => undefined,
): Promise<{ png: Buffer; paths: string[] }> {
  await page.setViewportSize(README_VIEWPORT);
  try {
    await arrange();
    const shot = await documentationScreenshot(page, name);
    const { png } = shot;
    // The PNG signature, then the IHDR's width and height.
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([
      README_VIEWPORT.width,
      README_VIEWPORT.height,
    ]);
    expect(png.length).toBeLessThan(300 * 1024);
    return shot;
  } finally {
    await page.setViewportSize(VIEWPORT);
  }
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

/** The page's size in the playground tests, and the README screenshots' (docs/*.png). */
export const VIEWPORT = { width: 1280, height: 1000 };
export const README_VIEWPORT = { width: 1100, height: 820 };

export interface PlaygroundSession {
  /** Set once the suite's beforeAll ran. */
  page: Page;
  /** Errors the page threw: a walkthrough ends by asserting there were none. */
  pageErrors: string[];
  /** Takes a screenshot named `<name>-<step>` if the current test fails. */
  screenshotOnFailure(step: string): void;
}

/**
 * Registers, in the calling describe, the whole bot in local mode (its own DATA_DIR) and one Chromium page on its
 * playground, connected; closed after the suite, with a final screenshot `<name>-final`.
 */
export function usePlaygroundSession(name: string): PlaygroundSession {
  let dataDir: string | undefined;
  let local: LocalMode | undefined;
  let browser: Browser | undefined;
  const session = {
    pageErrors: [] as string[],
    screenshotOnFailure(step: string) {
      onTestFailed(async () => {
        await screenshot(session.page, `${name}-${step}`);
      });
    },
  } as PlaygroundSession;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), `estoque-${name}-browser-`));
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    local = await startLocalMode(config, makeLogger({ level: 'silent' }), {
      port: 0,
      sandboxPort: 0,
      dataDir,
      print: () => undefined,
    });
    browser = await launchChromium();
    // The bot shows times in DIGEST_TZ; the page draws message times in the browser's zone: the same one.
    session.page = await browser.newPage({
      viewport: VIEWPORT,
      locale: 'pt-BR',
      timezoneId: 'America/Sao_Paulo',
    });
    session.page.on('pageerror', (error) => session.pageErrors.push(error.message));
    await session.page.goto(local.url);
    await session.page.getByRole('status').filter({ hasText: 'conectado' }).waitFor({ timeout: 15_000 });
  }, 60_000);

  afterAll(async () => {
    if (session.page) await screenshot(session.page, `${name}-final`);
    await browser?.close();
    await local?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return session;
}
