import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import pg from "pg";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { startDemoMcpServer, type DemoMcpServer } from "@/tools/demo/mcp/demo-mcp-server";
import { startDemoCarrier } from "@/tools/demo/upstream/carrier-server";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { signInAs } from "../helpers/sign-in";
import { axeViolations } from "../helpers/axe";

const run = randomBytes(3).toString("hex");
const tenant = `answer-${run}`;
const SHOTS = process.env.IDEM_SHOTS_DIR;

// A demo record, made as the demo's history makes them (the shop's guarded charge_card against the
// demo processor, five simulated hours back), opened by support: the answer is the first thing on
// the page, holds the charge's amount and receipt, and is readable and axe-clean at 1440 and 390 px.
describe.skipIf(browserMissing)("the record page answers first, in Chromium", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  let processor: DemoUpstream;
  let carrier: DemoUpstream;
  let mcp: DemoMcpServer;
  let client: Client;
  const keys: Record<string, string> = {};

  async function call(name: string, args: Record<string, unknown>, minutesAgo: number, extra = {}) {
    const at = new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const result = (await client.callTool({
      name,
      arguments: args,
      _meta: { "idem.demo/tenant": tenant, "idem.demo/subject": "user_1", "idem.demo/at": at, ...extra },
    })) as { _meta?: Record<string, unknown> };
    const ref = String(result._meta?.["idem.demo/ref"]);
    const { rows } = await pool.query<{ key: string }>(
      `SELECT key FROM idempotency WHERE tenant = $1 AND left(key, 12) = $2`,
      [tenant, ref],
    );
    return rows[0]!.key;
  }

  beforeAll(async () => {
    processor = await startDemoProcessor();
    carrier = await startDemoCarrier();
    mcp = await startDemoMcpServer({
      db: pool,
      processorUrl: processor.url,
      carrierUrl: carrier.url,
      processorTimeoutMs: 2000,
      forcedTimeoutMs: 200,
    });
    client = new Client({ name: "record-answer-browser", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
    keys.charged = await call("charge_card", { card: "c_0071", amount_cents: 24_000 }, 300);
    keys.unknown = await call("charge_card", { card: "c_0072", amount_cents: 1_500 }, 290, {
      "idem.demo/fault": "timeout",
    });
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await mcp?.stop();
    await processor?.stop();
    await carrier?.stop();
    await pool.end();
  });

  it("a demo charge: the sentence first, with its amount, receipt and labelled times", async () => {
    const page = await newPage();
    await signInAs(page, "viewer@demo.test", `/records/${keys.charged}`);
    const { rows } = await pool.query<{ response: { id: string; created_at: string } }>(
      `SELECT response FROM idempotency WHERE key = $1`,
      [keys.charged],
    );
    const receipt = rows[0]!.response;
    const at = receipt.created_at;
    const sentence = `Charged once, 24,000 cents USD, on ${at.slice(0, 10)} at ${at.slice(11, 19)} UTC (receipt ${receipt.id}).`;
    // First under the heading: the first section of the page's content is the answer.
    const first = page.locator("main section").first();
    expect(await first.getAttribute("aria-label")).toBe("Answer for the customer");
    expect(await first.locator('[data-testid="answer-sentence"]').textContent()).toBe(sentence);
    expect(await page.textContent('[data-testid="record-amount"]')).toBe("24,000 cents USD");
    await page.click("text=The times behind it");
    expect(await page.textContent('[data-testid="answer-times"]')).toMatch(
      /Claimed: the key was recorded.*The processor's own time on the stored response \(created_at\).*Completed: the outcome was stored/s,
    );
    const copy = page.getByRole("button", { name: /^Copy answer/ });
    expect(await copy.isVisible()).toBe(true);
    await saveShots(page, "record-answer-charged");
  });

  it("a processor timeout reads unknown: do not retry; ask again", async () => {
    const page = await newPage();
    await signInAs(page, "viewer@demo.test", `/records/${keys.unknown}`);
    expect(await page.textContent('[data-testid="answer-sentence"]')).toMatch(
      /^Unknown: the processor did not answer when the charge was requested on .* UTC; do not retry; ask again\.$/,
    );
    await saveShots(page, "record-answer-unknown");
  });

  // AxeBuilder needs a page of a context of the test's own (it opens frames in it).
  async function newPage() {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    return context.newPage();
  }

  /** Both widths: no violations, nothing wider than the phone, a screenshot of each. */
  async function saveShots(page: import("playwright-core").Page, name: string) {
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      const violations = (await axeViolations(page)).map((v) => `${v.id}: ${v.help}`);
      expect(violations, `${name} at ${width} px`).toEqual([]);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
      await screenshot(page, `${name}-${width}`);
      if (SHOTS) {
        mkdirSync(SHOTS, { recursive: true });
        await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
      }
    }
  }
});
