import { copyFileSync, mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { withIdempotency } from "idem-guard";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { demoConsoleConfig } from "@/tools/demo/demo-world";
import { DUPLICATE_SCAN_LOCK_ID, scanDuplicates } from "@/lib/duplicates/scan-duplicates";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { signInInContext } from "../helpers/sign-in";
import { seriousViolations } from "../helpers/axe";

const run = randomBytes(3).toString("hex");
const TENANT = `dups-${run}`;
// The served console's tools (the demo world's): send_receipt_email is keyed by a business key and never paired.
/** How the page writes a UTC time: the date in front only when it is not today's. */
const utc = (date: Date) => {
  const iso = date.toISOString();
  const today = new Date().toISOString().slice(0, 10);
  return `${iso.slice(0, 10) === today ? "" : `${iso.slice(0, 10)} `}${iso.slice(11, 19)} UTC`;
};
const COUNTED_THROUGH = /Counted through (\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}:\d{2} UTC/;
const config = parseConfig(JSON.stringify(demoConsoleConfig({ processor: "http://x.test", mcp: "http://x.test" })));

describe.skipIf(browserMissing)("duplicates page, in Chromium", () => {
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  let db: Db;
  let pool: pg.Pool;
  // Two 900 s bucket edges, two hours back and a quarter of an hour before that.
  const edge = new Date(Math.floor((Date.now() - 2 * 3_600_000) / 900_000) * 900_000);
  const at = (offsetSeconds: number) => new Date(edge.getTime() + offsetSeconds * 1000);

  async function call(tool: string, when: Date, args: object, subject: string | null, businessKey?: string) {
    const guarded = withIdempotency(
      {
        db: pool,
        tool,
        statusTool: "get_status",
        clock: () => when,
        businessKey: businessKey === undefined ? undefined : () => businessKey,
      },
      async () => ({ ok: true }),
    );
    expect((await guarded({ tenant: TENANT, subject, argumentsJson: JSON.stringify(args) })).outcome).toBe("executed");
  }

  /** The pairs by the definition, from the table itself: newest second claim first. */
  async function truth(): Promise<{ second: string; gap: number; edge: Date | null }[]> {
    const { rows } = await pool.query<{ second: string; gap: number; edge: Date | null }>(
      `SELECT b.key AS second, (extract(epoch FROM b.created_at - a.created_at) * 1000)::int AS gap,
              CASE WHEN floor(extract(epoch FROM a.created_at) / 900) < floor(extract(epoch FROM b.created_at) / 900)
                   THEN to_timestamp(floor(extract(epoch FROM b.created_at) / 900) * 900) END AS edge
       FROM idempotency b CROSS JOIN LATERAL (
         SELECT a.key, a.created_at FROM idempotency a
         WHERE a.tenant = b.tenant AND a.subject IS NOT DISTINCT FROM b.subject AND a.tool = b.tool
           AND a.arguments_sha256 = b.arguments_sha256 AND (a.created_at, a.key) < (b.created_at, b.key)
           AND b.created_at - a.created_at < interval '900 seconds'
         ORDER BY a.created_at DESC LIMIT 1) a
       WHERE b.tenant = $1 AND b.arguments_sha256 IS NOT NULL
       ORDER BY b.created_at DESC, b.key DESC`,
      [TENANT],
    );
    return rows;
  }

  beforeAll(async () => {
    db = createPrismaClient(inject("databaseUrl"), 1);
    pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
    // Retries that crossed a bucket edge: 10 s before it and 20 s after; 3 s and 4 s around the earlier one.
    await call("charge_card", at(-10), { card: "c_4242", amount_cents: 2400 }, "user_1");
    await call("charge_card", at(20), { card: "c_4242", amount_cents: 2400 }, "user_1");
    await call("refund_charge", at(-903), { charge: "ch_1" }, "user_2");
    await call("refund_charge", at(-896), { charge: "ch_1" }, "user_2");
    // One bucket, two keys: a writer whose business key changed between the calls.
    await call("charge_card", at(100), { card: "c_5555", amount_cents: 900 }, null, "order-7");
    await call("charge_card", at(160), { card: "c_5555", amount_cents: 900 }, null, "order-7b");
    // Not a duplicate: other arguments.
    await call("charge_card", at(30), { card: "c_4242", amount_cents: 2500 }, "user_1");

    // The console's background scan reads forward only and has passed these claims' created_at (a
    // backfill, docs/architecture.md#duplicates-that-got-through): rewind it to the hour before them,
    // under its lock, dropping what it wrote since, and scan again as its round would.
    const from = new Date(Math.floor((edge.getTime() - 3_600_000) / 3_600_000) * 3_600_000);
    await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${DUPLICATE_SCAN_LOCK_ID}::int8)`;
      await tx.$executeRaw`DELETE FROM duplicate_through WHERE second_at >= ${from}`;
      await tx.$executeRaw`DELETE FROM duplicate_scan_hourly WHERE hour >= ${from}`;
      await tx.$executeRaw`
        INSERT INTO duplicate_scan_state (id, scanned_through, scanned_at) VALUES (1, ${from}, now())
        ON CONFLICT (id) DO UPDATE SET scanned_through = EXCLUDED.scanned_through`;
    });
    const now = new Date();
    while ((await scanDuplicates(db, config, now)).chunks > 0);
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
  }, 60_000);
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await pool?.end();
    await db?.$disconnect();
  });

  const secondKeys = (page: Page) =>
    page
      .locator('[data-testid="duplicates-table"] tbody tr[data-second-key]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-second-key")));

  it("as a viewer at 1440 and 390 px: the rows the table holds, gaps and bucket edges, links to both records, no axe finding", async () => {
    const expected = await truth();
    expect(expected.map((e) => [e.gap, e.edge?.toISOString() ?? null])).toEqual([
      [60_000, null],
      [30_000, edge.toISOString()],
      [7_000, new Date(edge.getTime() - 900_000).toISOString()],
    ]);
    for (const [viewport, dir] of [
      [{ width: 1440, height: 900 }, "docs/screenshots"],
      [{ width: 390, height: 844 }, "docs/screenshots/mobile"],
    ] as const) {
      const context = await browser.newContext({ viewport });
      const page = await signInInContext(context, "viewer@demo.test", `/duplicates?tenant=${TENANT}`);
      await page.waitForSelector('[data-testid="duplicates-table"]');
      expect(await page.textContent("main h1")).toBe("Duplicates that got through");
      expect(await secondKeys(page)).toEqual(expected.map((e) => e.second));
      expect(await page.locator('[data-testid="duplicates-table"] [data-column="gap"]').allTextContents()).toEqual([
        "1 min",
        "30 s",
        "7 s",
      ]);
      expect(await page.locator('[data-testid="duplicates-table"] [data-column="edge"]').allTextContents()).toEqual([
        "same bucket",
        utc(edge),
        utc(new Date(edge.getTime() - 900_000)),
      ]);
      // Both records of a row are links to their pages.
      const row = page.locator(`tr[data-second-key="${expected[1]!.second}"]`);
      const hrefs = await row.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")));
      expect(hrefs).toHaveLength(2);
      expect(hrefs[1]).toBe(`/records/${expected[1]!.second}`);
      expect(hrefs[0]).toMatch(/^\/records\/[0-9a-f]{64}$/);
      // Per tool: the pairs; a tool the console knows of whose writer records no hash is not recorded, never 0.
      const count = (tool: string) =>
        page.locator(
          `[data-testid="duplicate-tool-counts"] a[data-tool="${tool}"] [data-testid="duplicate-tool-count"]`,
        );
      expect(await count("charge_card").textContent()).toBe("2");
      expect(await count("refund_charge").textContent()).toBe("1");
      expect(await count("create_shipment").textContent()).toBe("not recorded");
      expect(await count("send_receipt_email").textContent()).toBe("business key");
      expect(await page.textContent('[data-testid="duplicates-scanned-through"]')).toMatch(COUNTED_THROUGH);
      expect(await page.textContent("main")).toContain("Tools not listed record no arguments hash: not recorded");

      expect(await seriousViolations(page)).toEqual([]);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `the page at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
      // Nothing in a row runs past the table's box (hidden behind a sideways scroll on a phone's cards).
      const hidden = await page.$eval('[data-testid="duplicates-table"]', (table) => {
        const box = table.parentElement as HTMLElement;
        return box.scrollWidth - box.clientWidth;
      });
      expect(hidden, `the table's content past its box at ${viewport.width} px`).toBeLessThanOrEqual(1);
      mkdirSync(dir, { recursive: true });
      copyFileSync(await screenshot(page, `duplicates-${viewport.width}`), `${dir}/duplicates.png`);
      await context.close();
    }
  });

  it("each record of a pair says under its answer that the operation ran twice, links the other, at 1440 and 390 px, no axe finding", async () => {
    const pair = (await truth()).find((e) => e.edge !== null && e.gap === 30_000)!;
    const { rows } = await pool.query<{ first: string }>(
      `SELECT first_key AS first FROM duplicate_through WHERE second_key = $1`,
      [pair.second],
    );
    const first = rows[0]!.first;
    const edgeText = `${edge.toISOString().replace("T", " ").slice(0, 19)} UTC`;
    // A refusal for other arguments on the same page: its detail, two hashes in one token, must wrap at 390 px.
    await pool.query(
      `INSERT INTO idempotency_event (key, tenant, kind, at, detail) VALUES ($1, $3, 'arguments_mismatch', now(), $2)`,
      [pair.second, JSON.stringify({ call: "5".repeat(64), stored: "0".repeat(64) }), TENANT],
    );
    for (const [viewport, dir] of [
      [{ width: 1440, height: 900 }, "docs/screenshots"],
      [{ width: 390, height: 844 }, "docs/screenshots/mobile"],
    ] as const) {
      const context = await browser.newContext({ viewport });
      const page = await signInInContext(context, "viewer@demo.test", `/records/${pair.second}`);
      const card = page.locator('[data-testid="record-duplicates"]');
      await card.waitFor();
      expect(await card.locator("h2").textContent()).toBe("This operation ran at least twice");
      const item = card.locator('[data-testid="record-duplicate"]');
      expect(await item.count()).toBe(1);
      expect(await item.textContent()).toContain(
        `30 s earlier, across the bucket edge at ${edgeText} (900 s buckets).`,
      );
      expect(await item.locator("a").getAttribute("href")).toBe(`/records/${first}`);
      expect(await item.locator("a").textContent()).toBe(first.slice(0, 12));
      // Under the answer for the customer, before the record's facts.
      const order = await page.$$eval("main section[aria-label]", (sections) =>
        sections.slice(0, 3).map((section) => section.getAttribute("aria-label")),
      );
      expect(order).toEqual(["Answer for the customer", "Duplicates that got through", "Record"]);
      expect(await page.textContent('[data-testid="answer-sentence"]')).toMatch(
        new RegExp(`^Charged at least twice for the same request: on .* \\(ref ${first.slice(0, 12)}\\) and on `),
      );
      expect(await page.textContent('[data-testid="timeline"]')).toContain(
        `the call's arguments hash ${"5".repeat(16)}…, the row's ${"0".repeat(16)}…`,
      );
      expect(await seriousViolations(page)).toEqual([]);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `the record page at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
      mkdirSync(dir, { recursive: true });
      copyFileSync(await screenshot(page, `record-duplicate-${viewport.width}`), `${dir}/record-duplicate.png`);

      // The first claim's page names the repeat, later; the link goes back.
      await item.locator("a").click();
      await page.waitForURL(`**/records/${first}`);
      const back = page.locator('[data-testid="record-duplicate"]');
      await back.waitFor();
      expect(await back.textContent()).toMatch(
        /^Repeated as [0-9a-f]{12}, claimed .*, 30 s later, across the bucket edge/,
      );
      expect(await back.locator("a").getAttribute("href")).toBe(`/records/${pair.second}`);
      await context.close();
    }
    // A record in no pair (other arguments) has no such card.
    const { rows: lone } = await pool.query<{ key: string }>(
      `SELECT key FROM idempotency i WHERE tenant = $1 AND NOT EXISTS (
         SELECT 1 FROM duplicate_through d WHERE d.first_key = i.key OR d.second_key = i.key) LIMIT 1`,
      [TENANT],
    );
    const context = await browser.newContext();
    const page = await signInInContext(context, "viewer@demo.test", `/records/${lone[0]!.key}`);
    await page.waitForSelector('[data-testid="record-ref"]');
    expect(await page.locator('[data-testid="record-duplicates"]').count()).toBe(0);
    await context.close();
  });

  it("pages by the keyset pager, filters by tool through the form, and says so when nothing got through", async () => {
    const expected = (await truth()).map((e) => e.second);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await signInInContext(context, "viewer@demo.test", `/duplicates?tenant=${TENANT}&limit=2`);
    await page.waitForSelector('[data-testid="duplicates-table"]');
    expect(await secondKeys(page)).toEqual(expected.slice(0, 2));
    await page.click('[data-testid="duplicates-pager"] a:has-text("Older")');
    await page.waitForURL(/cursor=/);
    await expect.poll(() => secondKeys(page)).toEqual(expected.slice(2));
    expect(await page.locator('[data-testid="duplicates-pager"] a:has-text("Older")').count()).toBe(0);

    await page.goto(`${inject("baseUrl")}/duplicates?tenant=${TENANT}`);
    await page.selectOption('[data-testid="duplicates-filter-form"] select[name="tool"]', "refund_charge");
    await page.click('[data-testid="duplicates-filter-form"] button[type="submit"]');
    await page.waitForURL(/tool=refund_charge/);
    expect(new URL(page.url()).searchParams.get("tenant")).toBe(TENANT);
    await expect.poll(() => secondKeys(page)).toEqual([expected[2]]);

    // The last hour holds none of this tenant's (they are two hours old).
    await page.goto(`${inject("baseUrl")}/duplicates?tenant=${TENANT}&window=1h`);
    await page.waitForSelector('[data-testid="duplicates-empty"]');
    const empty = await page.textContent('[data-testid="duplicates-empty"]');
    expect(empty).toMatch(/^No duplicates got through in the last hour for this filter\./);
    expect(empty).toMatch(COUNTED_THROUGH);
    await context.close();
  });

  it("a link whose window cannot be read shows why beside the form, the typed tool and tenant kept, to correct in place", async () => {
    const expected = (await truth()).map((e) => e.second);
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await signInInContext(
      context,
      "viewer@demo.test",
      `/duplicates?tenant=${TENANT}&tool=refund_charge&window=7d&limit=2`,
    );
    await page.waitForSelector('[data-testid="duplicates-query-problems"]');
    const form = page.locator('[data-testid="duplicates-filter-form"]');
    const window = form.locator('select[name="window"]');
    expect(await window.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator(`#${await window.getAttribute("aria-describedby")}`).textContent()).toMatch(/window/);
    expect(await form.locator('select[name="tool"]').inputValue()).toBe("refund_charge");
    expect(await form.locator('input[name="tenant"]').inputValue()).toBe(TENANT);
    expect(await form.locator('input[name="tenant"]').getAttribute("aria-invalid")).toBeNull();
    expect(await page.locator('[data-testid="duplicates-table"]').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "mobile-duplicates-refused-filter");

    await window.selectOption("48h");
    await form.locator('button[type="submit"]').click();
    await page.waitForURL(/window=48h/);
    await expect.poll(() => secondKeys(page)).toEqual([expected[2]]);
    expect(new URL(page.url()).searchParams.get("limit")).toBeNull();
    await context.close();
  });

  it("a tenant-limited viewer is told another tenant is not among theirs, and sees none of its rows", async () => {
    const page = await signInInContext(
      await browser.newContext(),
      "acme-support@demo.test",
      `/duplicates?tenant=${TENANT}`,
    );
    await page.waitForSelector('[data-testid="unknown-tenant"]');
    expect(await page.locator("[data-second-key]").count()).toBe(0);
    await page.goto(`${inject("baseUrl")}/duplicates`);
    await page.waitForSelector('[data-testid="duplicates-pager"]');
    const keys = await secondKeys(page);
    const mine = (await truth()).map((e) => e.second);
    expect(keys.filter((k) => mine.includes(k!))).toEqual([]);
  });
});
