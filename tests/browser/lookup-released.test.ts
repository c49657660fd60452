import { copyFileSync, mkdirSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { signInAs } from "../helpers/sign-in";
import { watchPageErrors } from "../helpers/page-errors";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `released-${run}`;
const REASON = "ticket 5120: the processor never saw this charge";

describe.skipIf(browserMissing)("lookup of a released ref, in Chromium: what happened, not 'no record found'", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  let browser: Browser;
  let key: string;

  beforeAll(async () => {
    browser = await launchChromium();
    // A claim stuck for half an hour that the demo processor never took; a partial response holding a card number.
    key = createHash("sha256").update(`lookup-released|${run}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at) VALUES ($1, $2, 'user_7', 'charge_card', 'in_progress', $3, now() - interval '30 minutes')`,
      [key, TENANT, { card: "4242424242424242", attempt: 1 }],
    );
  });
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  it("an operator releases a claim on its record page; looking its ref up shows who, when, why, the masked snapshot and the audit entry", async () => {
    watchPageErrors(browser).allow(/status of 404 .*\/records\/[0-9a-f]{64}\)$/); // the released record's page, which no longer exists
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    await signInAs(page, "operator@demo.test", `/records/${key}`);
    await page.waitForSelector('[data-testid="resolve-panel"]');
    await page.click('button:has-text("Ask the processor")');
    await page.waitForSelector('[data-testid="processor-outcome"][data-outcome="not_taken"]');
    await page.fill('textarea[name="reason"]', REASON);
    await page.click('[data-testid="resolve-release"]');
    // The record page confirms from the release's audit entry: never "Nothing here".
    await page.waitForSelector('[data-testid="resolve-confirmation"][data-action="release"]');
    const [audit] = (
      await pool.query<{ id: string; actor: string }>(
        `SELECT id::text, actor FROM audit_log WHERE key = $1 AND action = 'record.release'`,
        [key],
      )
    ).rows;
    expect(audit).toBeDefined();

    const ref = key.slice(0, 12);
    await page.goto(`${baseUrl}/lookup?q=${encodeURIComponent(`Charge failed: already in progress (ref ${ref})`)}`);
    const card = page.locator(`[data-testid="ref-fate"][data-ref="${ref}"]`);
    await card.waitFor();
    expect(await card.getAttribute("data-fate")).toBe("released");
    expect(await page.locator('[data-testid="lookup-no-match"]').count()).toBe(0); // no "never existed / trimmed" guesses
    const released = card.locator('[data-testid="ref-released"]');
    expect(await released.getAttribute("data-audit-id")).toBe(audit!.id);
    expect(await released.locator('[data-testid="released-by"]').textContent()).toContain(audit!.actor);
    expect(await released.locator('[data-testid="released-reason"]').textContent()).toContain(REASON);
    const snapshot = (await released.locator('[data-testid="json-view"]').textContent()) ?? "";
    expect(snapshot).toContain(key);
    expect(snapshot).toContain("[redacted]");
    expect(snapshot).not.toContain("4242424242424242");

    mkdirSync("docs/screenshots/mobile", { recursive: true });
    copyFileSync(await screenshot(page, "lookup-released"), "docs/screenshots/lookup-released.png");
    await page.setViewportSize({ width: 390, height: 900 });
    copyFileSync(await screenshot(page, "lookup-released-mobile"), "docs/screenshots/mobile/lookup-released.png");
    await page.setViewportSize({ width: 1440, height: 1000 });

    // The link leads to the audit entry itself.
    await released.locator('[data-testid="released-audit-link"]').click();
    await page.waitForURL(/\/audit\?/);
    await page.locator(`tr[data-audit-id="${audit!.id}"]`).waitFor();
    expect(await page.getAttribute(`tr[data-audit-id="${audit!.id}"]`, "data-action")).toBe("record.release");

    // The record page of the released key says the same, instead of a 404.
    await page.goto(`${baseUrl}/records/${key}`);
    await page.locator('[data-testid="ref-fate"][data-fate="released"]').waitFor();
    // A random key is still a plain 404: never seen.
    const ghost = await page.goto(`${baseUrl}/records/${randomBytes(32).toString("hex")}`);
    expect(ghost?.status()).toBe(404);
    await page.close();
  });
});
