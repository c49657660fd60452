import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { browserMissing, launchChromium } from "../helpers/browser";
import { connectTestDb } from "../helpers/db";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { addTenantUser, auditOf, focusIsOn, insertStuckClaim, rowOf } from "../helpers/stuck-fixtures";

// The operator's job with the keyboard only (page.keyboard, never a click): sign in, reach /stuck,
// ask the processor on a row, release with a reason, land on the confirmation, follow "next stuck claim".
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `keys-${run}`;
const OPERATOR = `keys-op-${run}@demo.test`;

/** What has focus, for a failure message. */
const describeFocus = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el) return "nothing";
    return `${el.tagName.toLowerCase()} ${el.getAttribute("data-testid") ?? ""} ${el.getAttribute("aria-label") ?? ""} ${el.getAttribute("name") ?? ""} "${(el.textContent ?? "").trim().slice(0, 40)}"`;
  });

/** Presses Tab until the focused element matches `selector`; fails after `limit` presses. */
async function tabTo(page: Page, selector: string, limit = 150) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector}; focus is on ${await describeFocus(page)}`);
}

describe.skipIf(browserMissing)("keyboard only: an operator clears a stuck claim from the list", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  const db = connectTestDb();
  let browser: Browser;
  let pageErrors: PageErrorWatch;

  beforeAll(async () => {
    await addTenantUser(db, OPERATOR, "operator", [TENANT]);
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  it("signs in, asks on a row, releases with a reason, lands on the confirmation and follows the next stuck claim", async () => {
    const next = await insertStuckClaim(pool, { tenant: TENANT, label: "next", minutesAgo: 60 });
    const target = await insertStuckClaim(pool, { tenant: TENANT, label: "target", minutesAgo: 30 });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });

    await page.goto(`${baseUrl}/stuck`);
    await page.waitForURL(/\/sign-in\?callbackUrl=/);
    await tabTo(page, 'input[name="email"]');
    await page.keyboard.type(OPERATOR);
    await tabTo(page, 'input[name="password"]', 5);
    await page.keyboard.type(DEMO_PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${baseUrl}/stuck`);
    await page.waitForSelector(`tr[data-key="${target}"]`);

    const row = `tr[data-key="${target}"]`;
    await tabTo(page, `${row} [data-testid="row-ask"]`);
    await page.keyboard.press("Enter");
    await page.waitForSelector(`${row} [data-testid="row-answer"][data-outcome="not_taken"]`);
    expect(await focusIsOn(page, `${row} [data-testid="row-answer"]`), await describeFocus(page)).toBe(true);

    await tabTo(page, `${row} [data-testid="row-reason"]`, 5);
    await page.keyboard.type("ticket 7001: processor never saw it");
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="resolve-confirmation"]');
    await expect.poll(() => focusIsOn(page, '[data-testid="resolve-confirmation"]')).toBe(true);
    expect(await page.textContent('[data-testid="resolve-confirmation"]')).toContain(
      `Released claim ${target.slice(0, 12)} for charge_card (tenant ${TENANT})`,
    );
    expect(await rowOf(pool, target)).toBeNull();
    expect((await auditOf(pool, target)).map((a) => [a.action, a.reason])).toEqual([
      ["record.release", "ticket 7001: processor never saw it"],
    ]);

    await tabTo(page, '[data-testid="next-stuck-link"]', 5);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${baseUrl}/records/${next}`);
    await page.waitForSelector('[data-testid="resolve-panel"]');
    expect(await page.textContent('[data-testid="record-key"]')).toBe(next);
    await page.close();
  });
});
