import type { BrowserContext, Page } from "playwright-core";
import { inject } from "vitest";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";

/**
 * Opens `path` as an anonymous visitor, is sent to the sign-in page, signs in with a demo
 * account's password and lands back on `path` (the callbackUrl), as a person would.
 */
export async function signInAs(page: Page, email: string, path = "/", baseUrl = inject("baseUrl")): Promise<Page> {
  await page.goto(`${baseUrl}${path}`);
  await page.waitForURL(/\/sign-in\?callbackUrl=/);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', DEMO_PASSWORD);
  await page.click('button[type="submit"]');
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  return page;
}

/** The same in a fresh page of `context`. */
export async function signInInContext(context: BrowserContext, email: string, path = "/"): Promise<Page> {
  return signInAs(await context.newPage(), email, path);
}
