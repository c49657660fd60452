import { copyFileSync, mkdirSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { signInAs } from "../helpers/sign-in";
import { watchPageErrors } from "../helpers/page-errors";
import { seriousViolations } from "../helpers/axe";
import { awayFromBucketEdge } from "../helpers/mid-bucket-clock";

const run = randomBytes(3).toString("hex");
const REASON = "ticket 5121: the customer orders a second, identical gift card";
const SHOTS = process.env.IDEM_SHOTS_DIR;

/** axe's serious and critical findings on the page as it is now. */
async function axeFindings(page: Page): Promise<string[]> {
  return seriousViolations(page);
}

async function shoot(page: Page, name: string): Promise<void> {
  const file = await screenshot(page, name);
  if (SHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    copyFileSync(file, `${SHOTS}/${name}.png`);
  }
}

describe.skipIf(browserMissing)("allow a repeat on the record page, in Chromium", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  let browser: Browser;

  /** A completed charge claimed now (in the bucket's first 30 s left, the edge waited out), or `ago` before. */
  async function completed(tenant: string, label: string, ago = "0 seconds"): Promise<string> {
    if (ago === "0 seconds") await awayFromBucketEdge(); // the panel is for a key that still catches repeats
    const key = createHash("sha256").update(`allow-repeat-browser|${run}|${label}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES ($1, $2, 'user_7', 'charge_card', 'completed', $3, now() - $4::interval, now() - $4::interval)`,
      [key, tenant, { id: `ch_${label}`, status: "succeeded", amount_cents: 2500 }, ago],
    );
    return key;
  }

  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  it("an operator allows a repeat: reason, a confirmation naming the charge, then the page says what happened", async () => {
    watchPageErrors(browser).allow(/status of 404 .*\/records\/[0-9a-f]{64}/); // the deleted record's page
    const key = await completed(`allow-${run}`, "op");
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    await signInAs(page, "operator@demo.test", `/records/${key}`);
    const panel = page.locator('[data-testid="allow-repeat-panel"]');
    await panel.waitFor();
    expect(await panel.textContent()).toContain("the next identical call will charge again");
    const submit = page.locator('[data-testid="allow-repeat-submit"]');
    expect(await submit.isDisabled()).toBe(true);
    await panel.locator('textarea[name="reason"]').fill(REASON);
    expect(await submit.isDisabled()).toBe(true); // not confirmed yet
    await page.check('[data-testid="allow-repeat-confirm"]');
    expect(await axeFindings(page)).toEqual([]);
    await shoot(page, "allow-repeat-panel");
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await axeFindings(page)).toEqual([]);
    await shoot(page, "allow-repeat-panel-mobile");
    await page.setViewportSize({ width: 1440, height: 1000 });

    expect(await submit.isDisabled()).toBe(false);
    await submit.click();
    const confirmation = page.locator('[data-testid="resolve-confirmation"][data-action="allow_repeat"]');
    await confirmation.waitFor();
    expect(await confirmation.textContent()).toContain("the next identical call will charge again");
    const { rows } = await pool.query<{ id: string; before: { status: string } }>(
      `SELECT id::text, before FROM audit_log WHERE key = $1 AND action = 'record.allow_repeat'`,
      [key],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.before.status).toBe("completed");
    expect(await confirmation.getAttribute("data-audit-id")).toBe(rows[0]!.id);
    expect((await pool.query(`SELECT 1 FROM idempotency WHERE key = $1`, [key])).rowCount).toBe(0);
    await page.locator('[data-testid="ref-fate"][data-fate="repeat_allowed"]').waitFor();
    expect(await axeFindings(page)).toEqual([]);
    await shoot(page, "allow-repeat-done");
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await axeFindings(page)).toEqual([]);
    await shoot(page, "allow-repeat-done-mobile");
    await context.close();
  });

  it("past its time bucket the panel says a repeat needs no allowing, and offers no control", async () => {
    const key = await completed(`allow-${run}`, "ended", "1 hour");
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    await signInAs(page, "operator@demo.test", `/records/${key}`);
    const note = page.locator('[data-testid="allow-repeat-not-needed"]');
    await note.waitFor();
    expect(await note.textContent()).toMatch(
      /^Not needed: its time bucket ended \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC, so an identical call already derives a new key and runs again\.$/,
    );
    expect(await page.locator('[data-testid="allow-repeat-panel"]').count()).toBe(0);
    expect(await axeFindings(page)).toEqual([]);
    await shoot(page, "allow-repeat-not-needed");
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await axeFindings(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shoot(page, "allow-repeat-not-needed-mobile");
    await context.close();
    expect((await pool.query(`SELECT 1 FROM idempotency WHERE key = $1`, [key])).rowCount).toBe(1);
  });

  it("support (a viewer) sees the completed record with no control to allow a repeat", async () => {
    const key = await completed("acme", "support");
    for (const email of ["acme-support@demo.test", "viewer@demo.test"]) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
      const page = await context.newPage();
      await signInAs(page, email, `/records/${key}`);
      await page.locator('[data-testid="record-ref"]').waitFor();
      expect(await page.locator('[data-testid="record-status"]').textContent()).toMatch(/completed/i);
      expect(await page.locator('[data-testid="allow-repeat-panel"]').count()).toBe(0);
      expect(await page.locator("text=Allow a repeat").count()).toBe(0);
      await context.close();
    }
    expect((await pool.query(`SELECT 1 FROM idempotency WHERE key = $1`, [key])).rowCount).toBe(1);
  });
});
