import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { embeddedDatabaseUrl, startConsoleProcess, type ConsoleProcess } from "../helpers/console-process";
import { freePort } from "../helpers/free-port";
import { signInAs } from "../helpers/sign-in";

// What a new user sees after `npm ci && npm run demo`: the demo's 48 h of history on the embedded
// database, and the records page's status and tool chips. Each figure is checked against a count
// written here in SQL: exact equals it, "+" does not exceed it, "≈" is labelled and within 2×.
// A console of this file's own (the run's shared console has no history).

type Chip = { value: string; text: string; kind: string; title: string };

describe.skipIf(browserMissing)("records facets on the demo, in Chromium", () => {
  let browser: Browser;
  let consoleProcess: ConsoleProcess | undefined;
  let baseUrl: string;
  let databaseUrl: string;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), "idem-demo-facets-"));
    // 48 h of history through the shop's MCP server: minutes on two busy cores.
    consoleProcess = await startConsoleProcess({
      port: await freePort(),
      deadlineMs: 1_150_000,
      env: {
        DATABASE_URL: "",
        IDEM_DATA_DIR: dataDir,
        IDEM_EMBEDDED_PORT: "0",
        IDEM_DEMO_HISTORY_HOURS: "",
        NEXTAUTH_SECRET: "test-secret-for-the-demo-facets",
      },
    });
    baseUrl = consoleProcess.baseUrl;
    databaseUrl = embeddedDatabaseUrl(dataDir);
    browser = await launchChromium();
  }, 1_200_000);

  afterAll(async () => {
    await browser?.close();
    await consoleProcess?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  async function signIn(page: Page, email: string, to: string) {
    await signInAs(page, email, to, baseUrl);
    await page.waitForSelector('[data-testid="facets"]');
  }

  const chips = (page: Page, facet: "status" | "tool"): Promise<Chip[]> =>
    page.locator(`[data-testid="facet-${facet}"] a`).evaluateAll((links) =>
      links.map((a) => ({
        value: a.getAttribute("data-value") ?? "",
        text: a.querySelector("span:last-child")?.textContent ?? "",
        kind: a.getAttribute("data-count-kind") ?? "",
        title: a.getAttribute("title") ?? "",
      })),
    );

  async function truth(column: "status" | "tool", where = "", values: unknown[] = []): Promise<Map<string, number>> {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ value: string | null; n: number }>(
        `SELECT ${column} AS value, count(*)::int AS n FROM idempotency ${where} GROUP BY 1`,
        values,
      );
      return new Map(rows.map((r) => [r.value ?? "(unrecorded)", r.n]));
    } finally {
      await client.end();
    }
  }

  /** The figure as shown: "≈ 13,283", "10,000+", "312". */
  function expectChipTrue(chip: Chip, actual: number, label: string) {
    const shown = Number(chip.text.replace(/[≈+,\s]/g, ""));
    const what = `${label} ${chip.value}: shown "${chip.text}" (${chip.kind}), SQL count ${actual}`;
    if (chip.kind === "estimate") {
      expect(chip.text, what).toMatch(/^≈ [\d,]+$/);
      expect(chip.title, what).toMatch(
        /^planner estimate, within 2× of the true count: [\d,]+ rows × [\d.]+ % share in the statistics; analysed /,
      );
      expect(shown, what).toBeGreaterThanOrEqual(actual / 2);
      expect(shown, what).toBeLessThanOrEqual(actual * 2);
    } else if (chip.kind === "lower-bound") {
      expect(chip.text, what).toMatch(/^[\d,]+\+$/);
      expect(shown, what).toBeLessThanOrEqual(actual);
    } else {
      expect(chip.kind, what).toBe("exact");
      expect(chip.text, what).toMatch(/^[\d,]+$/);
      expect(shown, what).toBe(actual);
    }
  }

  it("the unfiltered page: status and tool chips, each exact, a lower bound or a labelled estimate within 2× of the SQL count", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    await signIn(page, "admin@demo.test", "/records");
    const [status, tool] = [await chips(page, "status"), await chips(page, "tool")];
    const [statusTruth, toolTruth] = [await truth("status"), await truth("tool")];
    expect(status.map((c) => c.value)).toContain("completed");
    expect(tool.length).toBeGreaterThanOrEqual(3); // the demo's shop has more tools than that, all with rows
    for (const chip of status) expectChipTrue(chip, statusTruth.get(chip.value) ?? 0, "status");
    for (const chip of tool) expectChipTrue(chip, toolTruth.get(chip.value) ?? 0, "tool");
    // After the demo's ANALYZE the whole table's completed is an estimate from fresh statistics.
    expect(status.find((c) => c.value === "completed")?.kind).toBe("estimate");

    // The API says what the page shows, and what each estimate was made from.
    const listing = (await page.evaluate(async () => (await fetch("/api/v1/records")).json())) as {
      facets: Record<
        "status" | "tool",
        {
          entries: {
            value: string | null;
            count: number;
            estimate: boolean;
            atLeast: boolean;
            basis: Record<string, unknown> | null;
          }[];
        }
      >;
    };
    const completed = listing.facets.status.entries.find((e) => e.value === "completed")!;
    expect(completed.estimate).toBe(true);
    expect(completed.basis).toEqual({
      filterRows: expect.any(Number),
      share: expect.any(Number),
      tableRows: expect.any(Number),
      analyzedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      modifiedSinceAnalyze: expect.any(Number),
    });
    for (const entry of [...listing.facets.status.entries, ...listing.facets.tool.entries]) {
      expect(entry.basis === null, String(entry.value)).toBe(!entry.estimate);
    }
    mkdirSync("docs/screenshots/mobile", { recursive: true });
    copyFileSync(await screenshot(page, "records-demo"), "docs/screenshots/records.png");
    await context.close();

    const mobile = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await mobile.newPage();
    await signIn(phone, "admin@demo.test", "/records");
    copyFileSync(await screenshot(phone, "records-demo-mobile"), "docs/screenshots/mobile/records.png");
    await mobile.close();
  });

  it("filtered and tenant-limited views are counted, never estimated: a tenant's chips, and the one-tenant viewer's", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, "admin@demo.test", "/records?tenant=acme");
    const tenantTool = await truth("tool", "WHERE tenant = 'acme'");
    const tenantStatus = await truth("status", "WHERE tenant = 'acme'");
    const [status, tool] = [await chips(page, "status"), await chips(page, "tool")];
    expect(tool.length).toBeGreaterThan(0);
    for (const chip of [...status, ...tool]) expect(chip.kind, chip.value).not.toBe("estimate");
    for (const chip of status) expectChipTrue(chip, tenantStatus.get(chip.value) ?? 0, "acme status");
    for (const chip of tool) expectChipTrue(chip, tenantTool.get(chip.value) ?? 0, "acme tool");
    await context.close();

    const limited = await browser.newContext();
    const viewer = await limited.newPage();
    await signIn(viewer, "acme-support@demo.test", "/records");
    const [vStatus, vTool] = [await chips(viewer, "status"), await chips(viewer, "tool")];
    expect(vTool.length).toBeGreaterThan(0);
    for (const chip of vStatus) expectChipTrue(chip, tenantStatus.get(chip.value) ?? 0, "acme-support status");
    for (const chip of vTool) expectChipTrue(chip, tenantTool.get(chip.value) ?? 0, "acme-support tool");
    await limited.close();
  });
});
