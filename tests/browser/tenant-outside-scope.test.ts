import { copyFileSync, mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { signInInContext } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";

// Every page that takes a tenant, in Chromium: acme-support@demo.test (tenant acme only) opening
// ?tenant=globex (a tenant with rows, not theirs) and ?tenant=nosuch (nobody's) reads one message,
// "no tenant '…' among yours", in the page — no zeros, no empty table presented as a fact, no
// picker reading "all my tenants". An unrestricted admin gets the same message for nosuch, and
// globex's claim for globex (the control: the message is not shown to everyone).
const run = randomBytes(3).toString("hex");
const ARGS = '{"amount_cents":990}';
const GLOBEX_CLAIM = `globex-${run}`.padEnd(64, "0");

const PAGES = {
  records: (t: string) => `/records?tenant=${t}`,
  stuck: (t: string) => `/stuck?tenant=${t}`,
  metrics: (t: string) => `/metrics?window=1h&tenant=${t}`,
  audit: (t: string) => `/audit?tenant=${t}`,
  keys: (t: string) =>
    `/keys?tenant=${t}&subject=user_1&tool=charge_card&args=${encodeURIComponent(ARGS)}&at=2026-06-01T12:00:00Z`,
} as const;

const message = (tenant: string) => `no tenant '${tenant}' among yours`;

/** What the page's main column says, with the tenant's name taken out. */
const mainText = async (page: Page, tenant: string) => (await page.locator("main").innerText()).replaceAll(tenant, "T");

/** The text each tenant picker on the page shows (none when the notice replaces the filters). */
const pickerTexts = (page: Page) =>
  page
    .locator('select[name="tenant"]')
    .evaluateAll((selects) => selects.map((s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent ?? ""));

describe.skipIf(browserMissing)("a tenant outside the caller's scope, on every page that takes one", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });
  let browser: Browser;

  beforeAll(async () => {
    // globex exists: a claim stuck for an hour and an audit entry.
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at) VALUES ($1, 'globex', 'user_1', 'charge_card', 'in_progress', now() - interval '1 hour') ON CONFLICT DO NOTHING`,
      [GLOBEX_CLAIM],
    );
    await pool.query(
      `INSERT INTO audit_log (actor, actor_role, action, key, tenant, reason) VALUES ('system:outside-scope-test', 'admin', 'record.complete', $1, 'globex', 'fixture')`,
      [`globex-audit-${run}`],
    );
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  it("acme-support: globex and nosuch read the same, on every page, with no figure and no 'all my tenants' picker", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await signInInContext(context, "acme-support@demo.test", "/");
    for (const [name, url] of Object.entries(PAGES)) {
      const seen: string[] = [];
      for (const tenant of ["globex", "nosuch"]) {
        await page.goto(`${inject("baseUrl")}${url(tenant)}`);
        await page.waitForSelector('[data-testid="unknown-tenant"]');
        expect(await page.textContent('[data-testid="unknown-tenant-message"]'), `${name} ${tenant}`).toBe(
          message(tenant),
        );
        expect(await pickerTexts(page), `${name} ${tenant}: the tenant picker`).not.toContain("all my tenants");
        if (tenant === "globex") await screenshot(page, `tenant-outside-scope-${name}`); // under test-results/, to look at
        const text = await mainText(page, tenant);
        if (name === "keys") {
          // The key is derived (arithmetic); no bucket claims "No record with this key".
          expect(await page.locator('[data-testid="explain-key"]').innerText()).toMatch(/^[0-9a-f]{64}$/);
          expect(text).not.toContain("No record with this key");
        } else {
          // No count at all, zero or otherwise, and none of the empty-state sentences.
          expect(text, `${name} ${tenant}`).not.toMatch(/\d/);
          expect(text, `${name} ${tenant}`).not.toMatch(/younger than|no writer records|No records match|No entries/i);
        }
        // The derived keys and refs differ with the tenant, as they must: compare the rest.
        seen.push(name === "keys" ? text.replace(/\b[0-9a-f]{12}(?:[0-9a-f]{52})?\b/g, "<hex>") : text);
      }
      expect(seen[0], `${name}: globex and nosuch differ`).toBe(seen[1]);
    }

    // The way out: the same page over acme-support's own tenants.
    await page.goto(`${inject("baseUrl")}${PAGES.records("globex")}`);
    await page.click('[data-testid="unknown-tenant"] >> text=Show all my tenants');
    await page.waitForURL((u) => u.pathname === "/records" && !u.searchParams.has("tenant"));
    await page.waitForSelector('[data-testid="unknown-tenant"]', { state: "detached" });

    await page.goto(`${inject("baseUrl")}${PAGES.stuck("globex")}`);
    await page.waitForSelector('[data-testid="unknown-tenant"]');
    mkdirSync("docs/screenshots/mobile", { recursive: true });
    copyFileSync(await screenshot(page, "tenant-outside-scope"), "docs/screenshots/tenant-outside-scope.png");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.waitForSelector('[data-testid="unknown-tenant"]');
    copyFileSync(
      await screenshot(page, "tenant-outside-scope-mobile"),
      "docs/screenshots/mobile/tenant-outside-scope.png",
    );
    await context.close();
  });

  it("an unrestricted admin: nosuch gets the same message on every page; globex, which exists, is shown", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await signInInContext(context, "admin@demo.test", "/");
    for (const [name, url] of Object.entries(PAGES)) {
      await page.goto(`${inject("baseUrl")}${url("nosuch")}`);
      await page.waitForSelector('[data-testid="unknown-tenant"]');
      expect(await page.textContent('[data-testid="unknown-tenant-message"]'), name).toBe(message("nosuch"));
      expect(await pickerTexts(page), name).not.toContain("all my tenants");
    }
    // Control: globex exists, so its stuck claim is listed and no notice is shown.
    await page.goto(`${inject("baseUrl")}${PAGES.stuck("globex")}`);
    await page.waitForSelector(`a[href^="/records/${GLOBEX_CLAIM}?"]`); // carrying the Stuck filter
    expect(await page.locator('[data-testid="unknown-tenant"]').count()).toBe(0);
    await context.close();
  });
});
