import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { startDatabase, type DatabaseKind, type DatabaseUnderTest } from "../truth/databases";
import { FigureBook, figureTable, type Figure } from "../truth/figures";
import { signIn, type PageContext } from "../truth/surface-context";
import { overviewPage } from "../truth/surfaces/overview";
import { metricsApi, metricsPage } from "../truth/surfaces/metrics";
import { recordsFacetsApi, recordsFacetsPage, type FacetFilter } from "../truth/surfaces/records-facets";
import { stuckPage } from "../truth/surfaces/stuck";
import { toolsAuditApi, toolsAuditPage } from "../truth/surfaces/tools-audit";

/**
 * The truth test: every figure the overview, the records facets, the stuck page, the metrics (per
 * tool, per tenant, the series) and the tools audit's evidence show — through the API, and on the
 * pages for a sample — beside an exact count made in SQL by this test (tests/truth/). Exact figures
 * must equal the truth, lower bounds must not exceed it, estimates must be labelled and within 2×,
 * latency percentiles within the histogram's stated error. Three databases: a demo history with
 * operator resolutions, one bulk-loaded after its last ANALYZE, and the embedded database.
 * Each database's table of figures goes to the output and to test-results/truth/<database>.txt.
 */
const OUT = path.resolve("test-results/truth");
const DATABASES: DatabaseKind[] = ["demo", "bulk-after-analyze", "embedded"];

const FACET_FILTERS: Record<DatabaseKind, FacetFilter[]> = {
  demo: [
    {},
    { status: "completed" },
    { tool: "charge_card" },
    { tenant: "acme" },
    { stuck: true },
    { tenant: "acme", tool: "charge_card" },
  ],
  "bulk-after-analyze": [
    {},
    { status: "completed" },
    { tool: "charge_card" },
    { tenant: "globex" },
    { tenant: "globex", tool: "charge_card" },
    { stuck: true },
    { status: "in_progress" },
    { tool: "import_ledger" },
  ],
  embedded: [{}, { status: "completed" }, { tool: "refund_charge" }, { tenant: "initech" }, { stuck: true }],
};

function expectTrue(figures: ReturnType<FigureBook["add"]>): void {
  const failures = figures.filter((f) => !f.ok).map((f) => `${f.surface} · ${f.name}: ${f.why}`);
  expect(failures, `${failures.length} of ${figures.length} figures are not true`).toEqual([]);
}

describe.skipIf(browserMissing)("the truth test: every figure shown is true, or says exactly how it is not", () => {
  let browser: Browser;
  // The three consoles start side by side (each mostly waits on its history's MCP round trips); each block awaits its own.
  const starting = new Map<DatabaseKind, Promise<DatabaseUnderTest>>();
  beforeAll(async () => {
    for (const kind of DATABASES) {
      const started = startDatabase(kind);
      started.catch(() => {}); // reported by the block that awaits it
      starting.set(kind, started);
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    for (const started of starting.values())
      await started.then(
        (db) => db.stop(),
        () => {},
      );
  }, 120_000);

  for (const kind of DATABASES) {
    describe(`on the ${kind} database`, () => {
      let db: DatabaseUnderTest;
      let context: BrowserContext;
      let page: Page;
      let pageCtx: PageContext;
      let known: Map<string, { idempotentHint: boolean | null }>;
      const book = new FigureBook(kind);
      const add = (figures: Omit<Figure, "database">[]) => book.add(figures);

      let setupSeconds = 0;

      beforeAll(async () => {
        const started = Date.now();
        db = await starting.get(kind)!;
        known = await db.ctx.truth.knownTools();
        context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
        // A console's first page may roll up two days of hours on a busy machine: waits are generous, assertions are not timed.
        context.setDefaultTimeout(90_000);
        page = await context.newPage();
        await signIn(page, db.ctx.baseUrl, "admin@demo.test", DEMO_PASSWORD);
        pageCtx = { ...db.ctx, page };
        setupSeconds = Math.round((Date.now() - started) / 1000); // waited for here, after the blocks before it
      }, 420_000);

      afterAll(async () => {
        const table = figureTable(book.checked);
        mkdirSync(OUT, { recursive: true });
        writeFileSync(path.join(OUT, `${kind}.txt`), `${table}\n`);
        const failed = book.checked.filter((c) => !c.ok).length;
        console.log(
          `truth test, ${kind} database (waited ${setupSeconds} s for it): ${book.checked.length} figures, ${failed} not true (table: ${path.join(OUT, `${kind}.txt`)})\n${table}`,
        );
        await context?.close();
        await db?.stop();
      }, 240_000);

      it("overview: records, in progress, stuck and the 24 h headline", async () => {
        const figures = add(await overviewPage(pageCtx, null, "admin"));
        const limited = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
        limited.setDefaultTimeout(90_000);
        try {
          const acmePage = await limited.newPage();
          await signIn(acmePage, db.ctx.baseUrl, "acme-support@demo.test", DEMO_PASSWORD);
          figures.push(...add(await overviewPage({ ...db.ctx, page: acmePage }, ["acme"], "acme-support")));
        } finally {
          await limited.close();
        }
        expectTrue(figures);
      }, 240_000);

      it("records facets: API for every filter (admin and a tenant-limited viewer), and the page's chips", async () => {
        const figures = add(await recordsFacetsApi(db.ctx, FACET_FILTERS[kind]));
        figures.push(...add(await recordsFacetsPage(pageCtx, {})));
        figures.push(...add(await recordsFacetsPage(pageCtx, FACET_FILTERS[kind][2] ?? {})));
        await screenshot(page, `truth-${kind}-records`);
        expectTrue(figures);
      }, 240_000);

      it("stuck counts: the stuck page, all tenants and one", async () => {
        const figures = add(await stuckPage(pageCtx, null));
        figures.push(...add(await stuckPage(pageCtx, "acme")));
        expectTrue(figures);
      }, 240_000);

      it("metrics per tool, per tenant and over time: API (1 h, 24 h; a tenant-limited viewer) and the page", async () => {
        const figures = add(await metricsApi(db.ctx, "1h", "admin", known));
        figures.push(...add(await metricsApi(db.ctx, "24h", "admin", known)));
        figures.push(...add(await metricsApi(db.ctx, "24h", "acme", known)));
        figures.push(...add(await metricsPage(pageCtx, "24h", known)));
        expectTrue(figures);
      }, 240_000);

      it("tools audit: each tool's evidence (API and page) and a summary that counts the rows' verdicts", async () => {
        const figures = add(await toolsAuditApi(db.ctx, "24h"));
        figures.push(...add(await toolsAuditPage(pageCtx, "24h")));
        expectTrue(figures);
      }, 120_000);
    });
  }
});
