import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { signInAs } from "../helpers/sign-in";
import { axeViolations } from "../helpers/axe";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MetricsSkeleton } from "@/components/metrics/metrics-skeleton";
import { TableSkeleton } from "@/components/ui/table-skeleton";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `a11y-${run}`;
const key = (label: string) => createHash("sha256").update(`a11y|${run}|${label}`).digest("hex");
/** The phone first: a state prepared there (a folded disclosure opened) is the same state widened. */
const PHONE_FIRST = [390, 1440];

type Role = "anonymous" | "viewer" | "operator" | "admin";
const EMAIL: Record<Exclude<Role, "anonymous">, string> = {
  viewer: "viewer@demo.test",
  operator: "operator@demo.test",
  admin: "admin@demo.test",
};

/**
 * One state of one page: where it is, who looks at it, what the page must meet while it is looked at
 * (`around`: set before it loads, undone after), and what to do once it has loaded (open a form, ask).
 */
type Visit = {
  name: string;
  path: string;
  roles: Role[];
  around?: { before: (page: Page) => Promise<void>; after: (page: Page) => Promise<void> };
  then?: (page: Page) => Promise<void>;
};

/**
 * The database still down: the 503 page asks /api/health every 5 s and goes back once it answers,
 * which on a slow machine was mid-audit (CI: "Execution context was destroyed").
 */
const HEALTH_STILL_DOWN: Visit["around"] = {
  before: async (page) => {
    await page.route("**/api/health", (route) =>
      route.fulfill({ status: 503, contentType: "application/json", body: '{"status":"unavailable"}' }),
    );
  },
  after: (page) => page.unroute("**/api/health"),
};

const SIGNED_IN: Role[] = ["viewer", "operator", "admin"];
// The pages whose controls depend on the role (reveal, resolve, bulk, reviews, servers) are seen
// by every role; the rest look the same to all, so the admin, who sees the most, looks at them.
const VISITS: Visit[] = [
  { name: "sign-in", path: "/sign-in", roles: ["anonymous"] },
  { name: "sign-in (error)", path: "/sign-in?error=CredentialsSignin", roles: ["anonymous"] },
  {
    name: "database unavailable",
    path: "/database-unavailable?from=%2Frecords",
    roles: ["anonymous"],
    around: HEALTH_STILL_DOWN,
  },
  { name: "overview", path: "/", roles: ["admin"] },
  { name: "records (rows)", path: "/records", roles: SIGNED_IN },
  { name: "records (filtered)", path: `/records?tenant=${TENANT}&tool=charge_card`, roles: ["admin"] },
  { name: "records (empty)", path: `/records?tenant=${TENANT}&status=failed`, roles: ["admin"] },
  { name: "record (completed)", path: `/records/${key("completed")}`, roles: SIGNED_IN },
  { name: "record (in_progress, stuck)", path: `/records/${key("stuck")}`, roles: SIGNED_IN },
  {
    name: "record (stuck, processor asked)",
    path: `/records/${key("stuck")}`,
    roles: ["viewer"],
    then: async (page) => {
      await page.click('button:has-text("Ask the processor"):not([disabled])');
      await page.waitForSelector('[data-testid="processor-outcome"]');
    },
  },
  {
    name: "record (revealed)",
    path: `/records/${key("completed")}`,
    roles: ["operator"],
    then: async (page) => {
      await page.click('[data-testid="reveal-open"]:not([disabled])');
      await page.fill('input[name="reason"]', `a11y sweep ${run}: reveal to check the page`);
      await page.click('[data-testid="reveal-submit"]');
      await page.waitForSelector('[data-testid="revealed-response"]');
    },
  },
  { name: "stuck", path: "/stuck", roles: SIGNED_IN },
  {
    name: "stuck (counts by tool opened)",
    path: "/stuck",
    roles: ["operator"],
    then: openOnPhone("stuck-tool-counts-toggle"),
  },
  {
    name: "records (filters opened)",
    path: `/records?tenant=${TENANT}`,
    roles: ["operator"],
    then: openOnPhone("records-filters-toggle"),
  },
  { name: "lookup (found)", path: `/lookup?q=${key("completed").slice(0, 12)}`, roles: ["admin"] },
  { name: "lookup (released)", path: `/lookup?q=${key("released").slice(0, 12)}`, roles: ["admin"] },
  { name: "lookup (no match)", path: "/lookup?q=000000abcdef", roles: ["admin"] },
  {
    name: "keys (explained)",
    path: `/keys?tenant=${TENANT}&subject=cust&tool=charge_card&args=${encodeURIComponent('{"amount_cents":100}')}`,
    roles: ["admin"],
  },
  { name: "metrics", path: "/metrics?window=1h", roles: ["admin"] },
  { name: "duplicates", path: "/duplicates", roles: ["viewer"] },
  { name: "duplicates (empty)", path: `/duplicates?window=1h&tool=nothing-${run}`, roles: ["admin"] },
  { name: "tools", path: "/tools", roles: SIGNED_IN },
  {
    name: "tools (verify dialog, bad JSON)",
    path: "/tools",
    roles: ["admin"],
    then: async (page) => {
      await openVerifyDialog(page, "charge_card");
      await page.fill('[data-testid="verify-dialog"] textarea', '{"card": ');
      await page.click('[data-testid="verify-run"]');
      await page.waitForSelector('[data-testid="verify-input-error"]');
    },
  },
  {
    name: "tools (verify result, failed)",
    path: "/tools",
    roles: ["admin"],
    then: async (page) => {
      await openVerifyDialog(page, "create_shipment");
      await page.fill(
        '[data-testid="verify-dialog"] textarea',
        `{"order_id": "a11y-${run}", "address": "1 Main St", "service_level": "ground"}`,
      );
      await page.click('[data-testid="verify-run"]');
      await page.waitForSelector('[data-testid="verify-dialog"][data-phase="done"]', { timeout: 60_000 });
    },
  },
  { name: "audit (rows)", path: "/audit", roles: ["admin"] },
  { name: "audit (empty)", path: `/audit?actor=nobody-${run}%40demo.test`, roles: ["admin"] },
  { name: "forbidden", path: "/forbidden", roles: ["viewer"] },
  { name: "not found", path: `/no-such-page-${run}`, roles: ["viewer"] },
];

/** Opens a disclosure a phone folds (from md or sm up its content shows and the button is gone). */
function openOnPhone(testId: string) {
  return async (page: Page) => {
    const button = page.locator(`[data-testid="${testId}"]`);
    if (!(await button.isVisible())) return;
    await button.click();
    await page.waitForSelector(`[data-testid="${testId}"][aria-expanded="true"]`);
  };
}

/** The demo shop listed (the audit shows stored listings only), then "Verify…" on its row of `tool`. */
async function openVerifyDialog(page: Page, tool: string): Promise<void> {
  const button = `tr[data-tool="${tool}"][data-server="shop"] [data-testid="verify-open"]:not([disabled])`;
  if ((await page.locator(button).count()) === 0) {
    await page.evaluate(() => fetch("/api/v1/tools/refresh", { method: "POST" }));
    await page.reload();
  }
  await page.click(button);
  await page.waitForSelector('[data-testid="verify-dialog"][open]');
}

/**
 * What fails the sweep: axe's serious and critical findings, and the two moderate ones a page
 * must still not have — no main landmark (a screen reader's "skip to main" finds nothing) and no
 * h1 (nothing says what the page is).
 */
const FAILS = (impact: string, rule: string) =>
  impact === "serious" || impact === "critical" || rule === "landmark-one-main" || rule === "page-has-heading-one";

type Violation = { page: string; role: Role; width: number; rule: string; impact: string; nodes: string[] };

// axe-core on every page of the console, in the states a person meets (rows, filters, empty, a
// revealed response, an answer), as each role where the page differs, at a desktop and a phone
// width: no serious or critical violation. The counts by page and rule land in
// test-results/accessibility-violations.json, so a change can be measured before and after.
describe.skipIf(browserMissing)("accessibility of every page (axe-core)", () => {
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });
  const sweepStarted = new Date();

  beforeAll(async () => {
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES
       ($1, $3, 'cust', 'charge_card', 'completed', '{"charge_id": "ch_1", "to": "a@b.example"}', now() - interval '3 minutes', now() - interval '3 minutes'),
       ($2, $3, 'cust', 'charge_card', 'in_progress', NULL, now() - interval '40 minutes', NULL)`,
      [key("completed"), key("stuck"), TENANT],
    );
    await pool.query(
      `INSERT INTO audit_log (actor, actor_role, action, key, tenant, reason, before) VALUES ('operator@demo.test', 'operator', 'record.release', $1, $2, 'a11y fixture', $3)`,
      [
        key("released"),
        TENANT,
        JSON.stringify({
          key: key("released"),
          tenant: TENANT,
          tool: "charge_card",
          status: "in_progress",
          createdAt: new Date().toISOString(),
        }),
      ],
    );
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    // The verify states stored runs of the demo shop's tools; other files read its verdicts from traffic.
    await pool.query(`DELETE FROM tool_verification WHERE started_at >= $1`, [sweepStarted]);
    await browser?.close();
    await pool.end();
  });

  /**
   * One page state at each width: loaded and prepared once at the phone width (where a folded
   * disclosure opens), audited, then widened and audited again. The console's layout is CSS alone
   * (no script reads the width), so a widened page is the page a desktop loads; loading it again
   * per width cost a navigation and a network-idle wait per audit.
   */
  async function auditAtEachWidth(page: Page, visit: Visit, role: Role): Promise<Violation[]> {
    const found: Violation[] = [];
    let landed = "";
    await visit.around?.before(page);
    for (const [i, width] of PHONE_FIRST.entries()) {
      await page.setViewportSize({ width, height: 900 });
      if (i === 0) {
        await page.goto(`${baseUrl}${visit.path}`);
        await page.waitForLoadState("networkidle");
        await visit.then?.(page);
        landed = page.url(); // a lookup with one match lands on its record: that is the page
      } else await settleAfterResize(page);
      found.push(
        ...(await axeViolations(page)).map((v) => ({
          page: visit.name,
          role,
          width,
          rule: v.id,
          impact: v.impact ?? "",
          nodes: v.nodes.map(
            (n) => `${n.target.join(" ")}${n.failureSummary ? ` — ${firstLine(n.failureSummary)}` : ""}`,
          ),
        })),
      );
    }
    // Both audits were of the page the visit loaded, not of one it went on to by itself meanwhile.
    expect(page.url(), visit.name).toBe(landed);
    await visit.around?.after(page);
    return found;
  }

  it("the loading placeholders a page shows while its query runs are named statuses, axe-clean", async () => {
    // They show for a moment only, so the sweep's loaded pages rarely catch one: rendered here on their own.
    const context = await browser.newContext();
    const page = await context.newPage();
    const skeletons = renderToStaticMarkup(
      createElement(
        "div",
        null,
        createElement(TableSkeleton, { label: "Loading audit entries" }),
        createElement(MetricsSkeleton),
      ),
    );
    await page.setContent(
      `<!doctype html><html lang="en"><head><title>Loading</title></head><body><main><h1>Loading</h1>${skeletons}</main></body></html>`,
    );
    const found = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
    expect(found.map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(", ")}`)).toEqual([]);
    expect(await page.getByRole("status", { name: "Loading audit entries" }).count()).toBe(1);
    expect(await page.getByRole("status", { name: "Loading metrics" }).count()).toBe(1);
    await context.close();
  });

  it("a record that is not there (or not the reader's) says so inside the shell's one main, with no violation of any impact", async () => {
    pageErrors.allow(/status of 404 .*\/records\/0{64}/);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAs(page, EMAIL.viewer);
    await page.goto(`${baseUrl}/records/${"0".repeat(64)}`);
    await page.waitForSelector("h1:has-text('Nothing here')");
    expect(await page.locator("main").count()).toBe(1);
    expect((await axeViolations(page)).map((v) => `${v.id} (${v.impact})`)).toEqual([]);
    await context.close();
  });

  it("has no serious or critical violation, and a main landmark and an h1, on any page, as any role, at 1440 and 390 px", async () => {
    // The not-found page and a 403 from /forbidden are what the page is; Chromium logs their status.
    pageErrors.allow(/status of 404 .*\/no-such-page-/);
    pageErrors.allow(/status of 503 .*\/database-unavailable/);
    pageErrors.allow(/status of 503 .*\/api\/health/);
    const violations: Violation[] = [];
    const contexts: BrowserContext[] = [];
    const pages = new Map<Role, Page>();
    const pageOf = async (role: Role): Promise<Page> => {
      const known = pages.get(role);
      if (known) return known;
      // AxeBuilder needs a page of a context of our own (it opens frames in it).
      const context = await browser.newContext();
      contexts.push(context);
      const page = await context.newPage();
      if (role !== "anonymous") await signInAs(page, EMAIL[role]);
      pages.set(role, page);
      return page;
    };
    for (const visit of VISITS)
      for (const role of visit.roles) violations.push(...(await auditAtEachWidth(await pageOf(role), visit, role)));
    for (const context of contexts) await context.close();

    const failing = violations.filter((v) => FAILS(v.impact, v.rule));
    const counts = countByPageAndRule(failing);
    mkdirSync(path.resolve("test-results"), { recursive: true });
    writeFileSync(
      path.resolve("test-results/accessibility-violations.json"),
      JSON.stringify(
        {
          counts,
          moderateAndMinor: countByPageAndRule(violations.filter((v) => !FAILS(v.impact, v.rule))),
          violations,
        },
        null,
        2,
      ),
    );
    const report = failing.map(
      (v) =>
        `${v.page} as ${v.role} at ${v.width}px: ${v.rule} (${v.impact}), ${v.nodes.length} node(s)\n    ${v.nodes.slice(0, 5).join("\n    ")}`,
    );
    expect(report, `axe violations (serious, critical, no main, no h1):\n${report.join("\n")}`).toEqual([]);
  }, 900_000); // a guard against a hang: the sweep takes 5–10 min on two busy cores
});

/**
 * After a resize: two frames drawn (the charts' resize observers have run), then no new request for
 * 500 ms (links no longer prefetch on sight, but a component may still ask for what the wider layout
 * shows). Playwright's "networkidle" was reached at load and is not waited for again.
 */
async function settleAfterResize(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
    const started = performance.now();
    let seen = performance.getEntriesByType("resource").length;
    let quietSince = performance.now();
    while (performance.now() - quietSince < 500 && performance.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = performance.getEntriesByType("resource").length;
      if (now !== seen) [seen, quietSince] = [now, performance.now()];
    }
  });
}

function firstLine(text: string): string {
  return text.split("\n").slice(0, 2).join(" ").slice(0, 200);
}

/** Serious and critical violations by page and rule: in how many (role, width) runs, and their nodes summed. */
function countByPageAndRule(violations: Violation[]): Record<string, Record<string, { runs: number; nodes: number }>> {
  const counts: Record<string, Record<string, { runs: number; nodes: number }>> = {};
  for (const v of violations) {
    const rule = ((counts[v.page] ??= {})[v.rule] ??= { runs: 0, nodes: 0 });
    rule.runs += 1;
    rule.nodes += v.nodes.length;
  }
  return counts;
}
