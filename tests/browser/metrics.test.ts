import { createHash, randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createPrismaClient } from "@/lib/db/prisma";
import { forgetMinuteSlicesSince } from "../helpers/forget-minute-slices";
import { signInAs } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `mb-${run}`;
const RECORDING_TOOL = `bt_${run}_charge`;
const SILENT_TOOL = `bt_${run}_silent`;

/**
 * Rows in the last few minutes (and one claim 40 minutes old): an hour that is not closed yet
 * (closed = ended 5 min ago). Other files' page visits may have rolled those minutes into slices
 * already; the rows are backdated, so those slices are forgotten and rolled again on the next read.
 */
async function writeRows(): Promise<void> {
  const db = createPrismaClient(inject("databaseUrl"), 1);
  const now = Date.now();
  const key = (label: string) => createHash("sha256").update(`${run}|${label}`).digest("hex");
  const rows: [string, string, string, number, number | null][] = [];
  for (let i = 0; i < 12; i++) rows.push([key(`c${i}`), RECORDING_TOOL, "completed", now - 200_000 + i * 10_000, 180 + i * 40]);
  for (let i = 0; i < 5; i++) rows.push([key(`s${i}`), SILENT_TOOL, "completed", now - 150_000 + i * 10_000, 900]);
  rows.push([key("stuck"), RECORDING_TOOL, "in_progress", now - 40 * 60_000, null]);
  try {
    for (const [k, tool, status, createdAt, latency] of rows) {
      await db.$executeRawUnsafe(
        `INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz)`,
        k, TENANT, tool, status, new Date(createdAt).toISOString(), latency === null ? null : new Date(createdAt + latency).toISOString(),
      );
    }
    for (let i = 0; i < 4; i++) {
      await db.$executeRawUnsafe(
        `INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES ($1, $2, $3, $4, $5::timestamptz)`,
        key(`c${i}`), TENANT, RECORDING_TOOL, i < 3 ? "replay_served" : "in_flight_rejected", new Date(now - 60_000 + i * 1_000).toISOString(),
      );
    }
    await forgetMinuteSlicesSince(db, new Date(now - 41 * 60_000));
  } finally {
    await db.$disconnect();
  }
}

describe.skipIf(browserMissing)("metrics and overview pages, in Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    await writeRows();
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("draws the charts, the risk table with 'not recorded', and keeps window and filters in the URL", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    await signInAs(page, "admin@demo.test", "/metrics?window=1h");
    await page.waitForURL(`${baseUrl}/metrics?window=1h`);

    // Charts render as SVG in the browser (recharts, client components).
    await page.waitForSelector('[data-testid="activity-chart"] svg.recharts-surface');
    await page.waitForSelector('[data-testid="suppression-chart"] svg.recharts-surface');
    expect(await page.locator('[data-testid="activity-chart"] .recharts-bar-rectangle').count()).toBeGreaterThan(0);

    const recording = page.locator(`[data-testid="risk-table-tool"] tr[data-row="${RECORDING_TOOL}"]`);
    const silent = page.locator(`[data-testid="risk-table-tool"] tr[data-row="${SILENT_TOOL}"]`);
    await expect.poll(() => recording.count()).toBe(1);
    const recordingCells = await recording.locator("td").allTextContents();
    // tool, stuck now, outcome unknown, executions, completed, replays, in-flight rejected, suppression …
    expect(recordingCells.slice(0, 8)).toEqual([RECORDING_TOOL, "1", "0", "13", "12", "3", "1", `${((4 / 17) * 100).toFixed(1)}%`]);
    expect(await recording.getAttribute("data-risk")).toBe("high");
    const silentCells = await silent.locator("td").allTextContents();
    expect(silentCells.slice(0, 8)).toEqual([SILENT_TOOL, "0", "not recorded", "5", "5", "not recorded", "not recorded", "not recorded"]);
    // Riskiest first: the tool with a stuck claim comes before the silent one.
    const order = await page.locator('[data-testid="risk-table-tool"] tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-row")));
    expect(order.indexOf(RECORDING_TOOL)).toBeLessThan(order.indexOf(SILENT_TOOL));

    // The tenant filter goes into the URL and narrows the page.
    await page.fill('input[name="tenant"]', TENANT);
    await page.click('button:has-text("Apply")');
    await page.waitForURL(new RegExp(`tenant=${TENANT}`));
    await expect.poll(() => page.textContent('[data-testid="headline-executions"] dd')).toBe("18");
    await screenshot(page, "metrics");

    // The 24 h window, hourly: same figures (all of them are in the live hour or two).
    await page.click('button[aria-pressed="false"]:has-text("24h")');
    await page.waitForSelector('button[aria-pressed="true"]:has-text("24h")');
    await page.waitForURL((url) => !url.searchParams.has("window")); // 24h is the default: the URL drops it
    await page.waitForSelector('[data-testid="activity-chart"] svg.recharts-surface');

    // The API answers the same, and refuses an unknown parameter.
    const api = await page.evaluate((t) => fetch(`/api/v1/metrics?window=1h&tenant=${t}`).then((r) => r.json()), TENANT);
    expect(api.tools.find((t: { tool: string }) => t.tool === SILENT_TOOL)).toMatchObject({ executions: 5, replaysServed: null, suppressionRate: null });
    expect(api.tools.find((t: { tool: string }) => t.tool === RECORDING_TOOL)).toMatchObject({ executions: 13, replaysServed: 3, inFlightRejected: 1, stuckNow: 1 });
    const refused = await page.evaluate(() => fetch("/api/v1/metrics?window=1h&tenat=x").then(async (r) => [r.status, await r.json()] as const));
    expect(refused[0]).toBe(400);
    expect(refused[1].error.message).toMatch(/unknown parameter "tenat"/);

    // The overview shows the stuck count and the 24 h headline figures.
    await page.goto(`${baseUrl}/`);
    await page.waitForSelector('[data-testid="headline-suppression-rate"]');
    expect(Number(await page.textContent('[data-testid="overview-stuck"]'))).toBeGreaterThanOrEqual(1);
    expect(await page.textContent('[data-testid="headline-replays"] dd')).not.toBe("not recorded");
    await screenshot(page, "overview");
    await context.close();
  });
});
