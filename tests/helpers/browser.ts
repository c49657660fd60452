import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { watchPageErrors } from "./page-errors";

/**
 * Chromium's headless build (Debian's chromium-headless-shell): the same Blink and V8 as the browser, without the
 * browser's own UI processes, at about half its CPU per test (docs/test-time.md, "Stop 56").
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium-headless-shell";

/** In CI a missing Chromium fails the run; on a developer machine the browser tests skip. */
export const browserMissing = !existsSync(CHROMIUM) && !process.env.CI;

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`Chromium is not at ${CHROMIUM}: apt-get install -y chromium-headless-shell`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // V8's baseline compiler at most: a test's page lives seconds, too short for the optimizing tiers to pay for
      // their compiles (Chromium's CPU in the accessibility sweep 29 → 26 s, docs/test-time.md "Stop 57").
      "--js-flags=--max-opt=1",
    ], // playwright gives every launch a fresh, empty profile of its own
  });
  watchPageErrors(browser); // every browser test fails on a console error or an uncaught exception
  return browser;
}

const SCREENSHOTS = path.resolve("test-results/screenshots");

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
