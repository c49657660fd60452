import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import pg from "pg";
import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium } from "../helpers/browser";
import { watchPageErrors } from "../helpers/page-errors";
import { signInAs } from "../helpers/sign-in";
import { axeViolations } from "../helpers/axe";

// The records page's export buttons (components/ui/download-link.tsx): the file the API streams is
// saved under its own name with every row; an export that takes more than a second says so, with a
// Cancel; an error answer is shown, never saved as the file.
const run = randomBytes(3).toString("hex");
const TENANT = `export-${run}`;
const ROWS = 240;
const EXPORT = "**/api/v1/records/export?*";
/** The key the seed gives row g (the SQL below hashes the same text). */
const seededKey = (g: number) => createHash("sha256").update(`records-export|${run}|${g}`).digest("hex");

/** Holds each export request `ms` before letting it through: an export that takes that long to start. */
const slowly = (ms: number) => async (route: Route) => {
  await new Promise((resolve) => setTimeout(resolve, ms));
  await route.continue().catch(() => {}); // cancelled meanwhile: the page no longer wants it
};

describe.skipIf(browserMissing)("records export from the page, in Chromium", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    browser = await launchChromium();
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, response, created_at, updated_at)
       SELECT encode(sha256(($1 || g)::bytea), 'hex'), $2, 'charge_card', 'completed', '{"id": "ch_1"}',
              now() - make_interval(secs => g), now() - make_interval(secs => g)
         FROM generate_series(1, ${ROWS}) AS g`,
      [`records-export|${run}|`, TENANT],
    );
    // AxeBuilder needs a page of a context of our own.
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    page = await context.newPage();
    await signInAs(page, "viewer@demo.test", `/records?tenant=${TENANT}`);
    await page.waitForSelector('[data-testid="export-csv"]');
  });
  afterAll(async () => {
    await browser?.close();
    // They are the newest rows of the shared database: left there, they push other files' records off their first pages.
    await pool.query(`DELETE FROM idempotency WHERE tenant = $1`, [TENANT]);
    await pool.end();
  });

  it("saves the CSV under the API's file name with every row of the filter, and says nothing when it is quick", async () => {
    const [download] = await Promise.all([page.waitForEvent("download"), page.click('[data-testid="export-csv"]')]);
    // The API's name for a filtered export (the fallback would be idem-records.csv).
    expect(download.suggestedFilename()).toMatch(/^idem-records-filtered-\d{8}T\d{6}.*\.csv$/);
    const lines = readFileSync((await download.path())!, "utf8")
      .trimEnd()
      .split("\n");
    const [{ n }] = (
      await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM idempotency WHERE tenant = $1`, [TENANT])
    ).rows as [{ n: number }];
    expect(n).toBe(ROWS);
    expect(lines).toHaveLength(ROWS + 1); // the header, then one line a row
    expect(lines[0]).toContain("key");
    // This filter's rows, not another page's: the first and the last seeded keys are in the file.
    expect(lines.some((line) => line.includes(seededKey(1)))).toBe(true);
    expect(lines.some((line) => line.includes(seededKey(ROWS)))).toBe(true);
    expect(await page.textContent('[data-testid="export-csv-progress"]')).toBe("");
  });

  it("an export that takes more than a second says it is under way, then saves the file", async () => {
    await page.route(EXPORT, slowly(2_500));
    try {
      const downloaded = page.waitForEvent("download");
      await page.click('[data-testid="export-json"]');
      const progress = page.locator('[data-testid="export-json-progress"]');
      await expect.poll(() => progress.textContent(), { timeout: 2_000 }).toContain("JSON export under way…");
      expect(await progress.getAttribute("role")).toBe("status");
      mkdirSync("docs/screenshots/mobile", { recursive: true });
      // The first screen, where the buttons are (a whole-page shot of 240 rows would bury them).
      await page.screenshot({ path: "docs/screenshots/records-export-progress.png" });
      expect((await axeViolations(page, '[data-testid="export-buttons"]')).map((v) => `${v.id}: ${v.help}`)).toEqual(
        [],
      );
      const download = await downloaded;
      expect(download.suggestedFilename()).toMatch(/^idem-records.*\.json$/);
      await expect.poll(() => progress.textContent()).toBe("");
    } finally {
      await page.unroute(EXPORT);
    }
  });

  it("at 390 px the progress line wraps under the buttons, and Cancel stops it without saving anything", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.route(EXPORT, slowly(4_000));
    let downloads = 0;
    page.on("download", () => (downloads += 1));
    try {
      await page.click('[data-testid="export-csv"]');
      const progress = page.locator('[data-testid="export-csv-progress"]');
      await expect.poll(() => progress.textContent(), { timeout: 2_500 }).toContain("CSV export under way…");
      await page.locator('[data-testid="export-buttons"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: "docs/screenshots/mobile/records-export-progress.png" });
      await progress.getByRole("button", { name: "Cancel" }).click();
      await expect.poll(() => progress.textContent()).toBe("");
      await page.waitForTimeout(4_500); // past the held request: nothing arrives to be saved
      expect(downloads).toBe(0);
    } finally {
      await page.unroute(EXPORT);
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it("an error answer is shown on the page, not saved as the file", async () => {
    watchPageErrors(browser).allow(/status of 503/);
    await page.route(EXPORT, (route) =>
      route.fulfill({
        status: 503,
        contentType: "application/json",
        headers: { "retry-after": "5" },
        body: JSON.stringify({
          error: {
            code: "database_unavailable",
            message: "The database is not answering; try again in a few seconds.",
          },
        }),
      }),
    );
    let downloads = 0;
    page.on("download", () => (downloads += 1));
    try {
      await page.click('[data-testid="export-csv"]');
      const progress = page.locator('[data-testid="export-csv-progress"]');
      await expect
        .poll(() => progress.textContent())
        .toBe("The database is not answering; try again in a few seconds.");
      expect(downloads).toBe(0);
    } finally {
      await page.unroute(EXPORT);
    }
  });
});
