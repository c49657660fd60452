import type { Browser } from "playwright-core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { signInInContext } from "../helpers/sign-in";
import { watchPageErrors } from "../helpers/page-errors";

const baseUrl = inject("baseUrl");

// Sessions live in console_session: the cookie only names a row, and the row decides.
describe.skipIf(browserMissing)("server-side sessions, in Chromium", () => {
  let browser: Browser;
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  const sessionIdOf = async (page: import("playwright-core").Page) =>
    (await page.evaluate(() => fetch("/api/auth/session").then((r) => r.json()))) as { sid?: string };

  it("a copy of the cookie is worthless after sign-out: pages go to sign-in, the API answers 401", async () => {
    watchPageErrors(browser).allow(/status of 401 .*\/api\/v1\/me\)$/); // the 401 under test
    const context = await browser.newContext();
    const page = await signInInContext(context, "viewer@demo.test", "/records");
    const cookies = await context.cookies();
    expect(cookies.some((c) => c.name.endsWith("next-auth.session-token"))).toBe(true);
    await page.click("text=Sign out");
    await page.waitForURL(/\/sign-in/);

    // Someone kept the cookie: put it back in a fresh browser.
    const replay = await browser.newContext();
    await replay.addCookies(cookies);
    const stolen = await replay.newPage();
    await stolen.goto(`${baseUrl}/records`);
    await stolen.waitForURL(/\/sign-in\?callbackUrl=%2Frecords/);
    expect(await stolen.evaluate(() => fetch("/api/v1/me").then((r) => r.status))).toBe(401);
    await replay.close();
    await context.close();
  });

  it("after the idle limit the next page says so on the sign-in page; signing in again brings the user back", async () => {
    watchPageErrors(browser).allow(/status of 401 .*\/api\/v1\/me\)$/); // the 401 under test
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await signInInContext(context, "operator@demo.test", "/stuck");
    const { sid } = await sessionIdOf(page);
    expect(sid).toEqual(expect.any(String));
    // 31 minutes without a request (the default idle limit is 30).
    const moved = await pool.query(
      `UPDATE console_session SET last_seen_at = now() - interval '31 minutes' WHERE id = $1 AND ended_at IS NULL`,
      [sid],
    );
    expect(moved.rowCount).toBe(1);

    await page.goto(`${baseUrl}/stuck`);
    await page.waitForURL(/\/sign-in\?callbackUrl=%2Fstuck&error=SessionIdle/);
    await expect.poll(() => page.textContent('[data-testid="sign-in-error"]')).toMatch(/without activity/);
    await screenshot(page, "sign-in-after-idle");
    expect(await page.evaluate(() => fetch("/api/v1/me").then((r) => r.status))).toBe(401);
    const ended = await pool.query(`SELECT ended_reason FROM console_session WHERE id = $1`, [sid]);
    expect(ended.rows[0]).toEqual({ ended_reason: "idle" });
    await context.close();
  });
});
