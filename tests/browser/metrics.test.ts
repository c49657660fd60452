import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { formatMs } from "@/components/metrics/metric-format";
import { createPrismaClient } from "@/lib/db/prisma";
import { MIN_RATE_CALLS } from "@/lib/metrics/metrics-report";
import { forgetMinuteSlicesSince } from "../helpers/forget-minute-slices";
import { signInAs } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors } from "../helpers/page-errors";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `mb-${run}`;
const RECORDING_TOOL = `bt_${run}_charge`;
const SILENT_TOOL = `bt_${run}_silent`;
/** A tool whose only completion the console made (two hours after the claim), and a claim the reconciler released. */
const RESOLVED_TOOL = `bt_${run}_resolved`;
const SERVER_RENDER = { timeout: 20_000, interval: 200 };

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
  for (let i = 0; i < 12; i++)
    rows.push([key(`c${i}`), RECORDING_TOOL, "completed", now - 200_000 + i * 10_000, 180 + i * 40]);
  for (let i = 0; i < 5; i++) rows.push([key(`s${i}`), SILENT_TOOL, "completed", now - 150_000 + i * 10_000, 900]);
  rows.push([key("stuck"), RECORDING_TOOL, "in_progress", now - 40 * 60_000, null]);
  try {
    for (const [k, tool, status, createdAt, latency] of rows) {
      await db.$executeRawUnsafe(
        `INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz)`,
        k,
        TENANT,
        tool,
        status,
        new Date(createdAt).toISOString(),
        latency === null ? null : new Date(createdAt + latency).toISOString(),
      );
    }
    for (let i = 0; i < 4; i++) {
      await db.$executeRawUnsafe(
        `INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES ($1, $2, $3, $4, $5::timestamptz)`,
        key(`c${i}`),
        TENANT,
        RECORDING_TOOL,
        i < 3 ? "replay_served" : "in_flight_rejected",
        new Date(now - 60_000 + i * 1_000).toISOString(),
      );
    }
    // The console's own work, as applyResolution records it: an operator's completion of a claim two
    // hours old (updated_at = the snapshot's version) and the reconciler's release of one three hours old.
    const completedAt = new Date(now - 30_000).toISOString();
    const snapshot = (k: string, ageMs: number, status: string, updatedAt: string | null) => ({
      key: k,
      tenant: TENANT,
      subject: null,
      tool: RESOLVED_TOOL,
      status,
      response: null,
      createdAt: new Date(now - ageMs).toISOString(),
      updatedAt,
      version: updatedAt === null ? null : updatedAt.replace("Z", "000Z"),
    });
    await db.$executeRawUnsafe(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at) VALUES ($1, $2, $3, 'completed', $4::timestamptz, $5::timestamptz)`,
      key("resolved"),
      TENANT,
      RESOLVED_TOOL,
      new Date(now - 2 * 3_600_000).toISOString(),
      completedAt,
    );
    await db.$executeRawUnsafe(
      `INSERT INTO audit_log (at, actor, actor_role, action, key, tenant, before, after, reason) VALUES
         ($1::timestamptz, 'operator@demo.test', 'operator', 'record.complete', $2, $3, $4::jsonb, $5::jsonb, 'processor says charged'),
         ($6::timestamptz, 'system:reconciler', 'operator', 'record.release', $7, $3, $8::jsonb, NULL, 'reconciler: not taken')`,
      completedAt,
      key("resolved"),
      TENANT,
      JSON.stringify(snapshot(key("resolved"), 2 * 3_600_000, "in_progress", null)),
      JSON.stringify(snapshot(key("resolved"), 2 * 3_600_000, "completed", completedAt)),
      new Date(now - 20_000).toISOString(),
      key("released"),
      JSON.stringify(snapshot(key("released"), 3 * 3_600_000, "in_progress", null)),
    );
    await forgetMinuteSlicesSince(db, new Date(now - 41 * 60_000));
  } finally {
    await db.$disconnect();
  }
}

/**
 * Every point of the line charts against its plot area (the clip rectangle recharts draws the
 * lines in): a point on the axis's last category used to sit on the right edge, half past it.
 */
async function pointsOutsidePlot(page: Page): Promise<string[]> {
  await page.waitForSelector('[data-testid="stuck-chart"] svg.recharts-surface circle');
  return page.evaluate(() =>
    ["suppression-chart", "stuck-chart"].flatMap((id) => {
      const svg = document.querySelector(`[data-testid="${id}"] svg.recharts-surface`);
      const plot = svg?.querySelector("defs clipPath rect");
      if (!svg || !plot) return [`${id}: no plot area`];
      const [x, y, w, h] = ["x", "y", "width", "height"].map((a) => Number(plot.getAttribute(a)));
      return [...svg.querySelectorAll("circle")].flatMap((c) => {
        const [cx, cy, r] = ["cx", "cy", "r"].map((a) => Number(c.getAttribute(a)));
        const stroke = Number(c.getAttribute("stroke-width") ?? 0) / 2;
        // Sideways only: a point of 0 sits on the x axis, as a chart's baseline points do.
        const out = cx! - r! - stroke < x! || cx! + r! + stroke > x! + w!;
        return out
          ? [`${id}: point at x ${cx} (r ${r}) outside the plot's ${x}..${x! + w!} (y ${cy}, ${y}..${y! + h!})`]
          : [];
      });
    }),
  );
}

/** A failed double-call test of create_shipment, as `idem verify-tool` stores it (evidence trimmed to what metrics read). */
async function storeShipmentVerification(): Promise<string> {
  const db = createPrismaClient(inject("databaseUrl"), 1);
  try {
    const [row] = await db.$queryRawUnsafe<{ id: bigint }[]>(
      `INSERT INTO tool_verification (server, tool, listing_hash, arguments_hash, concurrency, verdict, step, summary, evidence, started_at, finished_at, verified_by)
       VALUES ('shop', 'create_shipment', 'l', 'a', 3, 'failed', 'upstream', 'the upstream created 2 shipments', $1::jsonb, now(), now(), 'metrics-test')
       RETURNING id`,
      JSON.stringify({
        calls: Array.from({ length: 4 }, () => ({ phase: "concurrent" })),
        checks: [],
        rows: [],
        upstream: {
          adapter: "mcp-tool shop/get_shipment_status",
          reference: null,
          sideEffects: 2,
          detail: `the upstream created 2 shipments for order_id o-${run} during the run (get_shipment_status counts them), not 1`,
        },
        hint: null,
      }),
    );
    return String(row!.id);
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
    watchPageErrors(browser).allow(/status of 400 .*\/api\/v1\/metrics\?.*tenat=x\)$/); // the misspelt filter the test sends
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
    expect(await recording.locator('[data-testid="row-label"]').textContent()).toBe(RECORDING_TOOL);
    expect(await recording.locator('[data-testid="declared-hint"]').textContent()).toBe("not listed");
    const recordingCells = await recording.locator("td").allTextContents();
    // stuck now, executions, completed, outcome unknown, replays, in-flight rejected, suppression …
    // 17 calls: fewer than MIN_RATE_CALLS, so the rate carries its count.
    expect(recordingCells.slice(1, 8)).toEqual([
      "1",
      "13",
      "12",
      "0",
      "3",
      "1",
      `${((4 / 17) * 100).toFixed(1)}% of 17`,
    ]);
    expect(await recording.getAttribute("data-risk")).toBe("high");
    // A writer that records no events: one "not recorded" across the four event figures.
    const silentCells = await silent.locator("td").allTextContents();
    expect(silentCells.slice(1, 5)).toEqual(["0", "5", "5", "not recorded"]);
    expect(await silent.locator("td").nth(4).getAttribute("colspan")).toBe("4");
    // Riskiest first: the tool with a stuck claim comes before the silent one.
    const order = await page
      .locator('[data-testid="risk-table-tool"] tbody tr')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-row")));
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
    const api = await page.evaluate(
      (t) => fetch(`/api/v1/metrics?window=1h&tenant=${t}`).then((r) => r.json()),
      TENANT,
    );
    expect(api.tools.find((t: { tool: string }) => t.tool === SILENT_TOOL)).toMatchObject({
      executions: 5,
      replaysServed: null,
      suppressionRate: null,
    });
    expect(api.tools.find((t: { tool: string }) => t.tool === RECORDING_TOOL)).toMatchObject({
      executions: 13,
      replaysServed: 3,
      inFlightRejected: 1,
      stuckNow: 1,
    });
    const refused = await page.evaluate(() =>
      fetch("/api/v1/metrics?window=1h&tenat=x").then(async (r) => [r.status, await r.json()] as const),
    );
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

  it("shows writer latency apart from operator and reconciler resolutions, every known tool with its hint, and small samples as such", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await context.newPage();
    // The shop's listing: create_shipment claims idempotentHint and, in this tenant, has no rows at all.
    await signInAs(page, "admin@demo.test", "/tools");
    await page.waitForURL(`${baseUrl}/tools`);
    await page.click('[data-testid="refresh-listings"]');
    await expect.poll(() => page.getAttribute('[data-server="shop"]', "data-status"), SERVER_RENDER).toBe("ok");

    // A stored verify run of create_shipment that counted 2 shipments for its one operation (issue #29).
    const verificationId = await storeShipmentVerification();
    await page.goto(`${baseUrl}/metrics?window=1h&tenant=${TENANT}`);
    const table = page.locator('[data-testid="risk-table-tool"]');
    const resolved = table.locator(`tr[data-row="${RESOLVED_TOOL}"]`);
    await expect.poll(() => resolved.count(), SERVER_RENDER).toBe(1);
    const api = await page.evaluate(
      (t) => fetch(`/api/v1/metrics?window=1h&tenant=${t}`).then((r) => r.json()),
      TENANT,
    );
    const figures = api.tools.find((t: { tool: string }) => t.tool === RESOLVED_TOOL);
    // Item 2: the console's completion is not a writer's: no writer latency; the operators' and the reconciler's own delays.
    expect(figures).toMatchObject({
      completed: 1,
      timedCompletions: 0,
      completeP50Ms: null,
      completeP95Ms: null,
      resolvedByOperator: 1,
      resolvedByReconciler: 1,
    });
    expect(Math.abs(figures.operatorResolveP50Ms / (2 * 3_600_000) - 1)).toBeLessThan(0.1);
    expect(Math.abs(figures.reconcilerResolveP95Ms / (3 * 3_600_000) - 1)).toBeLessThan(0.1);
    expect(await resolved.locator('[data-testid="writer-latency"]').textContent()).toBe("— / —");
    const cellParts = async (testId: string) =>
      resolved.locator(`[data-testid="${testId}"] [data-part]`).allTextContents();
    expect(await cellParts("resolved-by-operators")).toEqual([
      "1",
      `${formatMs(figures.operatorResolveP50Ms)} / ${formatMs(figures.operatorResolveP95Ms)}`,
    ]);
    expect(await cellParts("resolved-by-reconciler")).toEqual([
      "1",
      `${formatMs(figures.reconcilerResolveP50Ms)} / ${formatMs(figures.reconcilerResolveP95Ms)}`,
    ]);
    expect(await table.locator("thead").textContent()).toMatch(/Writer p50 \/ p95.*By operators.*By reconciler/);

    // Item 4: every known tool has a row; create_shipment, with no rows here, reads zeros and "never seen" beside its declared hint.
    const shipment = table.locator('tr[data-row="create_shipment"]');
    expect(await shipment.getAttribute("data-seen")).toBe("false");
    expect(await shipment.locator('[data-testid="never-seen"]').textContent()).toBe("never seen");
    expect(await shipment.locator('[data-testid="declared-hint"]').textContent()).toBe("true");
    const shipmentCells = await shipment.locator("td").allTextContents();
    expect(shipmentCells.slice(1, 4)).toEqual(["0", "0", "0"]); // stuck now, executions, completed
    expect(await shipment.getAttribute("class")).toContain("bg-amber-50");
    expect(api.tools.find((t: { tool: string }) => t.tool === "create_shipment")).toMatchObject({
      seen: false,
      declaredIdempotentHint: true,
      executions: 0,
    });
    expect(await table.locator(`tr[data-row="${RECORDING_TOOL}"]`).getAttribute("data-seen")).toBe("true");
    // Beside "never seen" and "not recorded": what the upstream counted, named as a verify run's, with its time.
    const shipmentApi = api.tools.find((t: { tool: string }) => t.tool === "create_shipment");
    expect(shipmentApi.verifiedUpstream).toMatchObject({ verificationId, sideEffects: 2, operations: 1, calls: 4 });
    const verified = shipment.locator('[data-testid="verified-upstream"]');
    expect(await verified.getAttribute("data-side-effects")).toBe("2");
    expect(await verified.textContent()).toBe(
      `upstream counted 2 side effects for 1 operation (4 calls) · verify run ${shipmentApi.verifiedUpstream.finishedAt.slice(0, 10)} ${shipmentApi.verifiedUpstream.finishedAt.slice(11, 16)} UTC, failed`,
    );
    // … in the cell that says the writer records no events.
    expect(await shipment.locator("td").nth(4).locator('[data-testid="verified-upstream"]').count()).toBe(1);
    expect(await shipment.locator("td").nth(4).textContent()).toMatch(/^not recordedupstream counted 2 side effects/);
    // Completed beside Executions is explained where the two figures are.
    expect(await page.textContent('[data-testid="risk-table-tool"] [data-testid="completed-note"]')).toMatch(
      /Executions are claims made in the window; Completed are completions made in it, also of claims made before it/,
    );

    // Item 5: 17 calls in the window: the headline names them, and each step's rate over fewer than
    // MIN_RATE_CALLS is a hollow point with its count, never a point on the line.
    expect(api.overall).toMatchObject({ suppressionCalls: 17, smallSample: true });
    expect(await page.textContent('[data-testid="headline-suppression-rate"] dd')).toBe(
      `${((4 / 17) * 100).toFixed(1)}% of 17 calls`,
    );
    expect(await page.getAttribute('[data-testid="headline-rate-sample"]', "data-small-sample")).toBe("true");
    const smallSteps = api.series.filter((p: { smallSample: boolean; calls: number | null }) => p.smallSample);
    expect(smallSteps.length).toBeGreaterThan(0);
    for (const p of api.series) expect(p.smallSample).toBe(p.calls !== null && p.calls > 0 && p.calls < MIN_RATE_CALLS);
    await page.waitForSelector('[data-testid="suppression-chart"] svg.recharts-surface');
    const hollow = page.locator('[data-testid="suppression-chart"] circle[data-small-sample="true"]');
    await expect
      .poll(() => hollow.count(), SERVER_RENDER)
      .toBe(smallSteps.filter((p: { suppressionRate: number | null }) => p.suppressionRate !== null).length);
    expect(await hollow.first().getAttribute("fill")).toBe("#ffffff");
    expect(
      await page.locator('[data-testid="suppression-chart"] circle[data-calls]:not([data-small-sample])').count(),
    ).toBe(0);

    expect(await pointsOutsidePlot(page)).toEqual([]);

    mkdirSync("docs/screenshots/mobile", { recursive: true });
    copyFileSync(await screenshot(page, "metrics-resolutions"), "docs/screenshots/metrics.png");
    const mobile = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await mobile.newPage();
    await signInAs(phone, "admin@demo.test", `/metrics?window=1h&tenant=${TENANT}`);
    await phone.waitForSelector('[data-testid="suppression-chart"] svg.recharts-surface');
    await phone.waitForSelector(`[data-testid="risk-cards-tool"] li[data-row="${RESOLVED_TOOL}"]`);
    expect(await pointsOutsidePlot(phone)).toEqual([]);
    // A phone's first screen holds the summary; each tool is a few lines, its other figures a tap away.
    const firstScreen = await phone.evaluate(() =>
      ["headline-suppression-rate", "headline-stuck", "headline-outcome-unknown"].map(
        (id) => document.querySelector(`[data-testid="${id}"]`)!.getBoundingClientRect().bottom,
      ),
    );
    for (const bottom of firstScreen) expect(bottom).toBeLessThanOrEqual(844);
    const cards = phone.locator('[data-testid="risk-cards-tool"] li[data-row]');
    expect(await cards.count()).toBeGreaterThanOrEqual(8);
    const lineCounts = await cards.evaluateAll((lis) =>
      lis.map(
        (li) => [li.getAttribute("data-row"), Math.round((li.getBoundingClientRect().height - 12) / 16)] as const,
      ),
    );
    for (const [row, lines] of lineCounts) expect(lines, `${row}: lines of its card`).toBeLessThanOrEqual(4);
    const shipmentCard = phone.locator('[data-testid="risk-cards-tool"] li[data-row="create_shipment"]');
    expect(await shipmentCard.locator('[data-testid="verified-upstream"]').isVisible()).toBe(true);
    await shipmentCard.locator('[data-testid="card-figures"]').click();
    expect(await shipmentCard.locator("dl").textContent()).toContain("Effects/opnot reported");
    await shipmentCard.locator('[data-testid="card-figures"]').click();
    const height = await phone.evaluate(() => document.documentElement.scrollHeight);
    console.log(`metrics at 390 px: ${height} px tall, ${lineCounts.length} tool cards`);
    expect(height).toBeLessThanOrEqual(3_400);
    copyFileSync(await screenshot(phone, "mobile-metrics"), "docs/screenshots/mobile/metrics.png");
    await mobile.close();
    await context.close();
  });
});
