/**
 * Debian's Chromium driven by playwright-core, with the flags that work on these offline machines
 * (no background networking, no component updates, no sandbox as root).
 */
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchHeadlessChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
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
}
