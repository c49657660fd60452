import type { BrowserContext, Page } from "playwright-core";
import { inject } from "vitest";
import { signInOverHttp } from "../access/http-session";

/**
 * Signs `page`'s context in with a demo account through next-auth's credentials callback (the request
 * the sign-in form sends, with the browser's user agent), then opens `path`. The form itself is driven
 * by the files about it (sign-in, keyboard-jobs, sign-in-throttle); here it would cost two page loads.
 */
export async function signInAs(page: Page, email: string, path = "/", baseUrl = inject("baseUrl")): Promise<Page> {
  const userAgent = await page.evaluate(() => navigator.userAgent);
  const session = await signInOverHttp(baseUrl, email, userAgent);
  const split = session.cookie.indexOf("=");
  await page.context().addCookies([
    {
      name: session.cookie.slice(0, split),
      value: session.cookie.slice(split + 1),
      url: baseUrl,
      httpOnly: true,
      sameSite: "Lax",
    },
  ]);
  await page.goto(`${baseUrl}${path}`);
  if (new URL(page.url()).pathname === "/sign-in") throw new Error(`${email}'s session was not accepted at ${path}`);
  return page;
}

/** The same in a fresh page of `context`. */
export async function signInInContext(context: BrowserContext, email: string, path = "/"): Promise<Page> {
  return signInAs(await context.newPage(), email, path);
}
