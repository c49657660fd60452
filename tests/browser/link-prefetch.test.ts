import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { signInAs } from "../helpers/sign-in";

const run = randomBytes(3).toString("hex");
const TENANT = `prefetch-${run}`;
const ROWS = 30;

type Seen = { kind: "prefetch" | "navigation" | "document"; path: string };

/** What the page asks the server for: RSC requests (prefetches, client-side navigations) and full page loads. */
function watchRequests(page: Page): Seen[] {
  const seen: Seen[] = [];
  page.on("request", (request: Request) => {
    const path = new URL(request.url()).pathname;
    if (request.resourceType() === "document") seen.push({ kind: "document", path });
    else if (request.headers()["rsc"])
      seen.push({ kind: request.headers()["next-router-prefetch"] ? "prefetch" : "navigation", path });
  });
  return seen;
}

// The console's links (components/ui/link.tsx) prefetch when reached for, never on sight: a page of
// rows asks the server for nothing more until a reader points at, focuses or touches a link.
describe.skipIf(browserMissing)("links prefetch on intent, in Chromium", () => {
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });

  beforeAll(async () => {
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
    const keys = Array.from({ length: ROWS }, (_, i) =>
      createHash("sha256").update(`link-prefetch|${run}|${i}`).digest("hex"),
    );
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, response, created_at, updated_at)
       SELECT k, $2, 'charge_card', 'completed', '{"id": "ch_1"}', now() - interval '2 minutes', now() - interval '2 minutes'
       FROM unnest($1::text[]) AS k`,
      [keys, TENANT],
    );
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await pool.query(`DELETE FROM idempotency WHERE tenant = $1`, [TENANT]);
    await browser?.close();
    await pool.end();
  });

  it("a records page of 30 rows asks for nothing on sight; pointing, focusing and touching prefetch one page each; a click navigates in place", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, hasTouch: true });
    const page = await signInAs(await context.newPage(), "admin@demo.test", "/");
    const seen = watchRequests(page);
    await page.goto(`${page.url().replace(/\/$/, "")}/records?tenant=${TENANT}`, { waitUntil: "networkidle" });
    const rowLinks = page.locator('a[href^="/records/"]');
    expect(await rowLinks.count()).toBeGreaterThanOrEqual(ROWS);
    expect(
      seen.filter((s) => s.kind !== "document"),
      "nothing prefetched on sight",
    ).toEqual([]);

    // A pointer over a row's link: that record's page, and only it.
    const first = rowLinks.first();
    const firstPath = await first.getAttribute("href");
    await first.hover();
    await expect.poll(() => seen.filter((s) => s.kind === "prefetch").map((s) => s.path)).toContain(firstPath);
    expect(new Set(seen.filter((s) => s.kind === "prefetch").map((s) => s.path))).toEqual(new Set([firstPath]));

    // Keyboard focus on a navigation link, then a touch on another.
    await page.locator('nav[aria-label="Main"] a[href="/audit"]').focus();
    await expect.poll(() => seen.map((s) => s.path)).toContain("/audit");
    await page.locator('nav[aria-label="Main"] a[href="/stuck"]').tap();
    await page.waitForURL(/\/stuck$/);
    await page.waitForLoadState("networkidle");
    expect(seen.filter((s) => s.path === "/stuck").map((s) => s.kind)).toContain("prefetch");
    expect(
      seen.filter((s) => s.kind === "document"),
      "the tap navigated in place, without a full page load",
    ).toEqual([{ kind: "document", path: "/records" }]);
    await context.close();
  });
});
