import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach } from 'vitest';

/** Debian's Chromium, which .ci/run installs; playwright-core drives it. */
export const CHROMIUM = '/usr/bin/chromium';

/** Headless Chromium, as the tests drive it. */
function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/** Launches headless Chromium for a test; it is closed after the test. */
export function useBrowser(): () => Promise<Browser> {
  const open: Browser[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
  });
  return async () => {
    const browser = await launchChromium();
    open.push(browser);
    return browser;
  };
}

/**
 * Pages of one headless Chromium that a file's tests share: launched at the first page asked
 * for, closed after the file (a launch is most of what a page costs). Each page is in a context
 * of its own (no cookies or storage shared, as `browser.newPage()` gives), closed after its test.
 */
export function useBrowserPages(): () => Promise<Page> {
  let browser: Promise<Browser> | undefined;
  const contexts: BrowserContext[] = [];
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
  });
  afterAll(async () => {
    await (await browser)?.close();
  });
  return async () => {
    browser ??= launchChromium();
    const context = await (await browser).newContext();
    contexts.push(context);
    return context.newPage();
  };
}
