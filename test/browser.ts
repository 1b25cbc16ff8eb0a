import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * A real browser for the checks of what a consumer or an operator sees in one: Debian's chromium,
 * driven by playwright-core. Without it (`apt-get install -y chromium`, or set CHROMIUM_PATH) the
 * checks skip on a developer's machine and fail in CI, where they must run.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The flags a headless browser needs here: no sandbox (root in a container), no GPU, no calls home. */
export const HEADLESS_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Whether the browser is here; says how to get it when not, and throws in CI. */
export function haveBrowser(check: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  const line = `${check}: no browser at ${CHROMIUM}; install it with "apt-get update && apt-get install -y chromium" or set CHROMIUM_PATH`;
  if (process.env.CI) throw new Error(line);
  process.stderr.write(`${line}\n`);
  return false;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: HEADLESS_FLAGS });
}
