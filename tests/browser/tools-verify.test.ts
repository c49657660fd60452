import { mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium } from "../helpers/browser";
import { focusedElement } from "../helpers/keyboard-focus";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { signInAs } from "../helpers/sign-in";
import { findProcessor, insertStuckClaim } from "../helpers/stuck-fixtures";

const run = randomBytes(3).toString("hex");
const TENANT = `tverify-${run}`;
const SERVER_RENDER = { timeout: 20_000, interval: 200 };
// A run makes up to 3 calls, the first holding its claim until a repeat arrives, then the table and the upstream are read.
const RUN_DONE = { timeout: 60_000 };
const PHONE = { width: 390, height: 844 };

/** The demo shop's row of `tool` (the server idem.config.json marks verify). */
const shopRow = (tool: string) => `[data-testid="tool-audit-table"] tr[data-tool="${tool}"][data-server="shop"]`;

// The double-call test from the Tools page against the demo world the browser project's console runs:
// an admin verifies charge_card (the guard makes its hint true) and create_shipment (it does not),
// by keyboard at 1440 px and by touch-sized clicks at 390 px; a viewer and an operator get no button.
describe.skipIf(browserMissing)("Verify… on the Tools page, in Chromium", () => {
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });
  let processorUrl: string;
  let shopFaultsUrl: URL | undefined;
  let stuckKey: string;
  const startedAt = new Date();

  beforeAll(async () => {
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
    // A record whose detail names the demo processor's URL (the record API says where it asks).
    stuckKey = await insertStuckClaim(pool, { tenant: TENANT, label: "processor-finder", minutesAgo: 30 });
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    if (shopFaultsUrl)
      await fetch(shopFaultsUrl, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ holdForDuplicateMs: 0 }),
      });
    await pool.query(`DELETE FROM idempotency WHERE tenant = $1`, [TENANT]);
    // Other files read the shop's verdicts from its traffic (tools.test.ts): this file's runs are its own.
    await pool.query(`DELETE FROM tool_verification WHERE started_at >= $1`, [startedAt]);
    await browser?.close();
    await pool.end();
  });

  async function openToolsAsAdmin(viewport: { width: number; height: number }): Promise<Page> {
    const page = await (await browser.newContext({ viewport })).newPage();
    await signInAs(page, "admin@demo.test", "/tools");
    if (!processorUrl) {
      processorUrl = await findProcessor(page, stuckKey);
      // The first call must still hold its claim when the repeat arrives, on any machine: the shop holds
      // charge_card's claim until a repeat was turned away (at most 8 s). A slow processor (4 s) only made
      // it likely, and a loaded CI host twice let the first call finish first (inconclusive).
      shopFaultsUrl = new URL("/_faults", (await page.getAttribute(`[data-server="shop"] [title^="http"]`, "title"))!);
      const held = await fetch(shopFaultsUrl, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ holdForDuplicateMs: 8000 }),
      });
      expect(await held.json()).toEqual({ holdForDuplicateMs: 8000 });
    }
    // The audit reads stored listings only: list the shop now (an admin may refresh).
    await page.click('[data-testid="refresh-listings"]');
    await expect.poll(() => page.getAttribute('[data-server="shop"]', "data-status"), SERVER_RENDER).toBe("ok");
    await page.waitForSelector(`${shopRow("charge_card")} [data-testid="verify-open"]:not([disabled])`);
    return page;
  }

  async function processorTook(reference: string): Promise<number> {
    const stats = (await (await fetch(`${processorUrl}/_stats`)).json()) as {
      sideEffectsByReference: Record<string, number>;
    };
    return stats.sideEffectsByReference[reference] ?? 0;
  }

  /**
   * Focuses the button and presses Enter until its dialog opens. The rows render again once the
   * listing refresh lands; a button rendered anew under the focus takes no keypress (seen once in CI,
   * the dialog never opened), so the focus is placed again, at most three times.
   */
  async function openByKeyboard(page: Page, button: string) {
    for (let attempt = 1; ; attempt++) {
      await page.locator(button).focus();
      await page.keyboard.press("Enter");
      try {
        await page.waitForSelector('[data-testid="verify-dialog"][open]', { timeout: 10_000 });
        return;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
  }

  /** What the result region shows once the run answered. */
  async function readResult(page: Page) {
    await page.waitForSelector('[data-testid="verify-dialog"]:is([data-phase="done"], [data-phase="refused"])', {
      timeout: RUN_DONE.timeout,
    });
    const refused = page.locator('[data-testid="verify-refused"]');
    if ((await refused.count()) > 0) throw new Error(`the run was refused: ${await refused.textContent()}`);
    const result = page.locator('[data-testid="verify-dialog"] [data-testid="verification-result"]');
    return {
      verdict: await result.getAttribute("data-verdict"),
      badge: (await result.locator('[data-testid="verification-badge"]').textContent())?.trim(),
      summary: (await result.locator('[data-testid="verification-summary"]').textContent())?.trim() ?? "",
      checks: await result
        .locator('[data-testid="verification-checks"] li')
        .evaluateAll((items) => items.map((li) => `${li.getAttribute("data-step")}:${li.getAttribute("data-result")}`)),
      calls: await result
        .locator('[data-testid="verification-calls"] li')
        .evaluateAll((items) => items.map((li) => li.getAttribute("data-outcome"))),
      upstream: (await result.locator('[data-testid="verification-upstream"]').textContent()) ?? "",
      auditLink: await result.locator('[data-testid="verification-audit-link"]').getAttribute("href"),
    };
  }

  /** The row of `tool` once the page behind the dialog refreshed with the new run. */
  async function rowAfter(page: Page, tool: string) {
    const row = page.locator(shopRow(tool));
    return {
      verdict: await row.getAttribute("data-verdict"),
      latest: await row.locator('[data-testid="latest-verification"]').getAttribute("data-verdict"),
      stale: await row.locator('[data-testid="latest-verification"]').getAttribute("data-stale"),
    };
  }

  it("an admin, by keyboard at 1440 px: bad JSON is refused before any call; charge_card is verified; create_shipment fails", async () => {
    const page = await openToolsAsAdmin({ width: 1440, height: 900 });
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/api/v1/tools/verifications")) sent.push(r.method());
    });
    expect(await page.textContent('[data-server="shop"] [data-testid="server-verifiable"]')).toBe("verify: staging");

    // Focus the row's button (the page has hundreds of stops before it), then keys only.
    await openByKeyboard(page, `${shopRow("charge_card")} [data-testid="verify-open"]`);
    // The arguments field takes focus; the warning is in front of the admin.
    expect((await focusedElement(page))?.describe).toContain("textarea");
    // Up to 3: the repeat after them is not made when the 2 at once already executed twice.
    expect(await page.textContent('[data-testid="verify-warning"]')).toMatch(
      /Real side effects\. This calls charge_card up to 3 times with these arguments on shop: 2 at once, then 1 more unless those already executed more than once\./,
    );
    // What the tool asks for, from its latest listing; a start from its required fields goes into the textarea,
    // with values the schema shown accepts (not "" and 0, which its minLength 1 and > 0 refuse).
    expect(
      await page.locator('[data-testid="verify-schema-field"]').evaluateAll((items) => items.map((i) => i.textContent)),
    ).toEqual([
      "card string, required, at least 1 character, at most 200 characters — card token, e.g. c_71",
      "amount_cents integer, required, > 0, ≤ 100000000",
    ]);
    await page.click('[data-testid="verify-fill"]');
    expect(JSON.parse(await page.inputValue('[data-testid="verify-dialog"] textarea'))).toEqual({
      card: "c_71",
      amount_cents: 1,
    });
    expect(await page.textContent('[data-testid="verify-placeholders"]')).toBe(
      "Replace the placeholders of card, amount_cents with values of yours before running: they only fit the schema above, and every call is real.",
    );
    expect((await focusedElement(page))?.describe).toContain("textarea");

    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type('{"card": "c_4242", "amount_cents": ');
    expect(await page.locator('[data-testid="verify-placeholders"]').count(), "edited: no placeholder note").toBe(0);
    await page.keyboard.press("Tab"); // → calls at once
    await page.keyboard.press("Tab"); // → Run
    expect(await focusedElement(page)).toMatchObject({ tag: "button", text: "Run up to 3 real calls" });
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="verify-input-error"]');
    expect(await page.textContent('[data-testid="verify-input-error"]')).toMatch(
      /^The arguments are not valid JSON: .*Nothing was called\.$/,
    );
    expect(sent, "bad JSON sends nothing").toEqual([]);

    const amount = 1000 + Math.floor(Math.random() * 90_000);
    await page.locator('[data-testid="verify-dialog"] textarea').focus();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type(`{"card": "c_4242", "amount_cents": ${amount}}`);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    const verified = await readResult(page);
    expect(sent).toEqual(["POST"]);
    expect(verified, verified.summary).toMatchObject({ verdict: "verified", badge: "verified" });
    expect(verified.checks).toEqual(["answers:passed", "table:passed", "upstream:passed"]);
    expect([...verified.calls].sort()).toEqual(["executed", "in_flight", "replayed"]);
    expect(verified.summary.length).toBeGreaterThan(10);
    expect(verified.auditLink, "the result links its own audit entry").toMatch(/^\/audit\?id=\d+$/);
    // The result took the focus the Run button had (it is disabled while running).
    await expect
      .poll(() => page.evaluate(() => Boolean(document.activeElement?.closest('[aria-label="verification result"]'))))
      .toBe(true);
    // The processor's own counter: the run's reference was charged exactly once.
    const key = await pool.query<{ key: string }>(
      `SELECT evidence->'rows'->0->>'key' AS key FROM tool_verification WHERE server = 'shop' AND tool = 'charge_card' ORDER BY id DESC LIMIT 1`,
    );
    expect(await processorTook(key.rows[0]!.key)).toBe(1);
    mkdirSync("docs/screenshots/mobile", { recursive: true });
    await page.screenshot({ path: "docs/screenshots/tools-verify-verified.png" });

    // Escape closes; focus is back on the row's button; the row shows the new latest run.
    await page.keyboard.press("Escape");
    await page.waitForSelector('[data-testid="verify-dialog"]', { state: "detached" });
    expect((await focusedElement(page))?.text).toMatch(/^Verify/);
    await expect
      .poll(() => rowAfter(page, "charge_card"), SERVER_RENDER)
      .toEqual({ verdict: "claim_verified_by_test", latest: "verified", stale: "false" });
    // The run's sentence once, in the Verdict column: the test column shows the badge, when and by whom.
    const chargeRow = page.locator(shopRow("charge_card"));
    expect(await chargeRow.locator('[data-testid="latest-verification-summary"]').count()).toBe(0);
    const rowText = (await chargeRow.textContent()) ?? "";
    expect(rowText.split(verified.summary).length - 1, "the run's sentence, once in the row").toBe(1);
    expect(await chargeRow.locator('[data-testid="verdict-explanation"]').textContent()).toContain(verified.summary);
    // This file's stuck charge (30 min old) does not unmake the proof, and the summary line still says "unresolved".
    expect(await chargeRow.locator("[data-also-unresolved]").textContent()).toMatch(/^also unresolved: \d+ claims?$/);
    expect(await page.textContent('[data-testid="verdict-also-unresolved"]')).toMatch(
      /also unresolved: .*\d+ claims? of 1 verified tool/,
    );

    // The same arguments again a moment later (the README's command after Verify…): answered from the first
    // run's row, nothing executes — inconclusive, naming that row and its bucket's end; never refuted.
    await page.locator(`${shopRow("charge_card")} [data-testid="verify-open"]`).focus();
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="verify-dialog"][open]');
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type(`{"card": "c_4242", "amount_cents": ${amount}}`);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    const again = await readResult(page);
    expect(again, again.summary).toMatchObject({ verdict: "inconclusive", badge: "inconclusive at table" });
    expect(again.summary).toContain(`every call was answered from row ${key.rows[0]!.key.slice(0, 12)}`);
    expect(again.summary).toMatch(/until \d{4}-\d\d-\d\d \d\d:\d\d:00 UTC, the end of the default 900 s bucket/);
    expect(await processorTook(key.rows[0]!.key)).toBe(1);
    await page.screenshot({ path: "docs/screenshots/tools-verify-inconclusive.png" });
    await page.keyboard.press("Escape");
    await page.waitForSelector('[data-testid="verify-dialog"]', { state: "detached" });
    await expect
      .poll(() => rowAfter(page, "charge_card"), SERVER_RENDER)
      .toMatchObject({ latest: "inconclusive", stale: "false" });
    expect(await page.locator(shopRow("charge_card")).getAttribute("data-verdict")).not.toBe("claim_refuted_by_test");

    // create_shipment: no key, no reference — the carrier ships twice.
    await page.locator(`${shopRow("create_shipment")} [data-testid="verify-open"]`).focus();
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="verify-dialog"][open]');
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type(`{"order_id": "o-${run}", "address": "1 Main St", "service_level": "ground"}`);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    const failed = await readResult(page);
    expect(failed, failed.summary).toMatchObject({ verdict: "failed" });
    expect(failed.badge).toMatch(/^failed at (table|upstream)$/);
    expect(failed.checks).toEqual(expect.arrayContaining(["table:failed", "upstream:failed"]));
    expect(failed.upstream).toContain("2 side effect(s)");
    await page.screenshot({ path: "docs/screenshots/tools-verify-failed.png" });
    await page.keyboard.press("Escape");
    await expect
      .poll(() => rowAfter(page, "create_shipment"), SERVER_RENDER)
      .toEqual({ verdict: "claim_refuted_by_test", latest: "failed", stale: "false" });
    // The two rows after their runs: verified, refuted, each with its latest test beside the traffic evidence.
    await page
      .locator('[data-testid="tool-audit-table"]')
      .screenshot({ path: "docs/screenshots/tools-verify-rows.png" });
    await page.context().close();
  }, 180_000);

  it("an admin at 390 px: the dialog fits the phone, runs, and shows the result", async () => {
    const page = await openToolsAsAdmin(PHONE);
    const same = `{"card": "c_4242", "amount_cents": ${1000 + Math.floor(Math.random() * 90_000)}}`;
    for (const [tool, args, verdict, shot] of [
      ["charge_card", same, "verified", "verified"],
      // The same arguments again: answered from the row just written, it tested nothing.
      ["charge_card", same, "inconclusive", "inconclusive"],
      [
        "charge_card",
        `{"card": "c_4242", "amount_cents": ${1000 + Math.floor(Math.random() * 90_000)}}`,
        "verified",
        "verified",
      ],
      [
        "create_shipment",
        `{"order_id": "o-${run}-phone", "address": "1 Main St", "service_level": "ground"}`,
        "failed",
        "failed",
      ],
    ] as const) {
      await page.click(`${shopRow(tool)} [data-testid="verify-open"]`);
      await page.waitForSelector('[data-testid="verify-dialog"][open]');
      // The schema panel, filled from the required fields, fits the phone too.
      await page.click('[data-testid="verify-fill"]');
      expect(
        await page.evaluate(() => {
          const panel = document.querySelector('[data-testid="verify-schema"]') as HTMLElement;
          return panel.scrollWidth - panel.clientWidth;
        }),
      ).toBe(0);
      await page.screenshot({ path: `docs/screenshots/mobile/tools-verify-schema-${tool}.png` });
      await page.fill('[data-testid="verify-dialog"] textarea', args);
      await page.click('[data-testid="verify-run"]');
      const result = await readResult(page);
      expect(result.verdict, result.summary).toBe(verdict);
      // Nothing wider than the phone: the dialog and its result wrap instead of scrolling sideways.
      const overflow = await page.evaluate(() => {
        const dialog = document.querySelector('[data-testid="verify-dialog"]') as HTMLElement;
        return {
          dialog: dialog.scrollWidth - dialog.clientWidth,
          page: document.documentElement.scrollWidth - innerWidth,
        };
      });
      expect(overflow).toEqual({ dialog: 0, page: 0 });
      await page.screenshot({ path: `docs/screenshots/mobile/tools-verify-${shot}.png` });
      await page.click('[data-testid="verify-close"]');
      await page.waitForSelector('[data-testid="verify-dialog"]', { state: "detached" });
    }
    await expect
      .poll(() => rowAfter(page, "charge_card"), SERVER_RENDER)
      .toEqual({ verdict: "claim_verified_by_test", latest: "verified", stale: "false" });
    await page.locator(shopRow("charge_card")).screenshot({ path: "docs/screenshots/mobile/tools-verify-row.png" });
    await page.context().close();
  }, 180_000);

  it("a viewer and an operator see each tool's latest run but no Verify button; the route refuses them too", async () => {
    pageErrors.allow(/status of 403 .*\/api\/v1\/tools\/verifications/);
    for (const email of ["viewer@demo.test", "operator@demo.test"]) {
      const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
      await signInAs(page, email, "/tools");
      const row = page.locator(shopRow("charge_card"));
      await expect
        .poll(() => row.locator('[data-testid="latest-verification"]').getAttribute("data-verdict"), SERVER_RENDER)
        .toBe("verified");
      expect(await page.locator('[data-testid="verify-open"]').count(), email).toBe(0);
      const status = await page.evaluate(() =>
        fetch("/api/v1/tools/verifications", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ server: "shop", tool: "charge_card", arguments: { card: "c_4242", amount_cents: 5 } }),
        }).then((r) => r.status),
      );
      expect(status, email).toBe(403);
      await page.context().close();
    }
  });
});
