import { randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync } from "node:fs";
import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { signInAs } from "../helpers/sign-in";
import { axeViolations } from "../helpers/axe";

// The overview's table-size block: rows labelled as an estimate, bytes from the catalog, the oldest
// row against the retention, the jobs' last runs; shown to callers who see every tenant only.

const TENANT = `bounds-${randomBytes(3).toString("hex")}`;

describe.skipIf(browserMissing)("overview: table size and retention, in Chromium", () => {
  let browser: Browser;
  let errors: PageErrorWatch;
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  beforeAll(async () => {
    await client.connect();
    // Rows of this file's own (the demo world may have written few yet), and what autovacuum would do
    // soon enough: the estimate needs statistics.
    await client.query(
      `INSERT INTO idempotency (key, tenant, tool, status, response, created_at)
       SELECT md5($1 || i) || md5(i || $1), $1, 'charge_card', 'completed', '{"receipt": "r"}', now() - interval '1 hour'
         FROM generate_series(1, 500) AS i`,
      [TENANT],
    );
    await client.query("ANALYZE idempotency");
    browser = await launchChromium();
    errors = watchPageErrors(browser);
  });
  afterAll(async () => {
    await browser?.close();
    await client.query("DELETE FROM idempotency WHERE tenant = $1", [TENANT]);
    await client.end();
  });

  it("shows rows as an estimate, bytes, bytes per row, the oldest row and retention, at 1440 and 390", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    await signInAs(page, "admin@demo.test", "/");
    const block = page.locator('[data-testid="overview-table-bounds"]');
    await block.waitFor();
    const rows = (await page.textContent('[data-testid="overview-rows-estimate"]'))!;
    expect(rows).toMatch(/^≈ [\d,]+$/);
    expect(await block.textContent()).toContain("planner estimate (pg_class), not a count");
    const { rows: catalog } = await client.query<{ bytes: string }>(
      "SELECT pg_total_relation_size('idempotency') AS bytes",
    );
    const shown = /^([\d.,]+) (B|kB|MB|GB)$/.exec((await page.textContent('[data-testid="overview-size-on-disk"]'))!);
    expect(shown, "size on disk with its unit").not.toBeNull();
    const scale = { B: 1, kB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 }[shown![2] as "B" | "kB" | "MB" | "GB"];
    const bytes = Number(catalog[0]!.bytes);
    // Shown to one decimal of its unit; the demo world writes meanwhile: within 5 %.
    expect(Math.abs((Number(shown![1]!.replaceAll(",", "")) * scale - bytes) / bytes)).toBeLessThan(0.05);
    expect(await page.textContent('[data-testid="overview-bytes-per-row"]')).toMatch(/^≈ [\d,]+ B$/);
    expect(await block.textContent()).toContain("retention 48 h");
    expect(await page.textContent('[data-testid="overview-last-trim"]')).toMatch(/ago$|^never$/);
    expect((await axeViolations(page, '[data-testid="overview-table-bounds"]')).map((v) => v.id)).toEqual([]);
    mkdirSync("docs/screenshots/mobile", { recursive: true });
    copyFileSync(await screenshot(page, "overview"), "docs/screenshots/overview.png");

    const mobile = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await mobile.newPage();
    await signInAs(phone, "admin@demo.test", "/");
    await phone.locator('[data-testid="overview-table-bounds"]').waitFor();
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, "no sideways scrolling at 390 px").toBeLessThanOrEqual(0);
    copyFileSync(await screenshot(phone, "mobile-overview"), "docs/screenshots/mobile/overview.png");
    await mobile.close();
    await context.close();
    errors.expectNoPageErrors();
  });

  it("says a trim did not finish when its run's heartbeat stopped without an end, at 1440 and 390", async () => {
    // A run killed mid-way, as lib/audit/job-runs.ts leaves it: started, beat, no end. Its beat is 200 ms, so
    // it is dead 1.2 s on; started now, so no trim another file finished earlier covers it.
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO job_run (id, job, actor, dry_run, started_at, heartbeat_at, heartbeat_ms, deleted)
       VALUES (gen_random_uuid(), 'trim', 'system:cron', false, now(), now(), 200, 1240)
       RETURNING id`,
    );
    await new Promise((r) => setTimeout(r, 1_500)); // six of its beats and more
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const mobile = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await signInAs(page, "admin@demo.test", "/");
      const trim = page.locator('[data-testid="overview-last-trim"]');
      await trim.waitFor();
      expect(await trim.textContent()).toBe("did not finish");
      const block = (await page.locator('[data-testid="overview-table-bounds"]').textContent())!;
      expect(block).toMatch(
        /a run died: the newest started \d+ s ago, last heartbeat \d+ s ago; the next run finishes the rest/,
      );
      expect((await axeViolations(page, '[data-testid="overview-table-bounds"]')).map((v) => v.id)).toEqual([]);
      mkdirSync("docs/screenshots/mobile", { recursive: true });
      copyFileSync(await screenshot(page, "overview-dead-run"), "docs/screenshots/overview-dead-run.png");
      const phone = await mobile.newPage();
      await signInAs(phone, "admin@demo.test", "/");
      const phoneTrim = phone.locator('[data-testid="overview-last-trim"]');
      await phoneTrim.waitFor();
      expect(await phoneTrim.textContent()).toBe("did not finish");
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, "no sideways scrolling at 390 px").toBeLessThanOrEqual(0);
      copyFileSync(
        await screenshot(phone, "mobile-overview-dead-run"),
        "docs/screenshots/mobile/overview-dead-run.png",
      );
      errors.expectNoPageErrors();
    } finally {
      await mobile.close();
      await context.close();
      await client.query("DELETE FROM job_run WHERE id = $1", [rows[0]!.id]);
    }
  });

  it("is not shown to a caller limited to one tenant (the figures are every tenant's)", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAs(page, "acme-support@demo.test", "/");
    await page.locator('[data-testid="overview-records"]').waitFor();
    expect(await page.locator('[data-testid="overview-table-bounds"]').count()).toBe(0);
    await context.close();
    errors.expectNoPageErrors();
  });
});
