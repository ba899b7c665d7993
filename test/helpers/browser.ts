import { type Browser, chromium } from 'playwright-core';
import { afterEach } from 'vitest';

/** Debian's Chromium, which .ci/run installs; playwright-core drives it. */
export const CHROMIUM = '/usr/bin/chromium';

/** Launches headless Chromium for a test; it is closed after the test. */
export function useBrowser(): () => Promise<Browser> {
  const open: Browser[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((b) => b.close()));
  });
  return async () => {
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
    open.push(browser);
    return browser;
  };
}
