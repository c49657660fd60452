import { createHash, randomBytes } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { signInAs } from "../helpers/sign-in";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `a11y-${run}`;
const key = (label: string) => createHash("sha256").update(`a11y|${run}|${label}`).digest("hex");

/** The pages this wave changed, in the states it added (a notice for an unknown tenant, a released ref). */
const PAGES = [
  "/",
  "/records",
  `/records?tenant=${TENANT}`,
  "/stuck",
  "/stuck?tenant=nosuch",
  "/metrics?window=1h",
  "/metrics?tenant=nosuch",
  "/tools",
  `/lookup?q=${key("released").slice(0, 12)}`,
  `/records/${key("completed")}`,
  "/audit",
  "/audit?tenant=nosuch",
  `/keys?tenant=nosuch&tool=charge_card&args=${encodeURIComponent("{}")}`,
];
const WIDTHS = [1440, 390];

type Violation = { page: string; width: number; id: string; impact: string | null | undefined; nodes: string[] };

// axe-core on every page this wave touched, at a desktop and a phone width: no serious or critical
// violation. (The whole console's sweep, every role and every page, is issue #16's.)
describe.skipIf(browserMissing)("accessibility of the pages this wave changed (axe-core)", () => {
  let browser: Browser;
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });

  beforeAll(async () => {
    browser = await launchChromium();
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES
       ($1, $2, 'cust', 'charge_card', 'completed', '{"charge_id": "ch_1", "to": "a@b.example"}', now() - interval '3 minutes', now() - interval '3 minutes')`,
      [key("completed"), TENANT],
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
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  async function audit(page: Page, path: string, width: number): Promise<Violation[]> {
    await page.setViewportSize({ width, height: 900 });
    await page.goto(`${baseUrl}${path}`);
    await page.waitForLoadState("networkidle");
    const results = await new AxeBuilder({ page }).analyze();
    return results.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        page: path,
        width,
        id: v.id,
        impact: v.impact,
        nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
      }));
  }

  it("has no serious or critical violation, signed in as admin and on the sign-in page", async () => {
    const violations: Violation[] = [];
    // AxeBuilder needs a page of a context of our own (it opens frames in it).
    const anonymousContext = await browser.newContext();
    const anonymous = await anonymousContext.newPage();
    for (const width of WIDTHS) violations.push(...(await audit(anonymous, "/sign-in", width)));
    await anonymousContext.close();
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInAs(page, "admin@demo.test");
    for (const path of PAGES) {
      for (const width of WIDTHS) {
        violations.push(...(await audit(page, path, width)));
        if (path.startsWith("/lookup")) await screenshot(page, `a11y-lookup-${width}`);
      }
    }
    await context.close();
    expect(violations).toEqual([]);
  }, 300_000);
});
