import { copyFileSync, mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { saveUser } from "@/lib/auth/users";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors } from "../helpers/page-errors";
import { systemAdmin } from "../helpers/system-admin";

const baseUrl = inject("baseUrl");
const TENANT = `tools-${randomBytes(3).toString("hex")}`;
const SERVER_RENDER = { timeout: 20_000, interval: 200 };
const ADMIN_EMAIL = `${TENANT}-admin@demo.test`;
const TEST_SETUP = systemAdmin("tools-test", { id: "test", displayName: "tools test" });

describe.skipIf(browserMissing)("tools page (annotation audit), in Chromium", () => {
  let browser: Browser;
  let db: Db;

  beforeAll(async () => {
    // One keyed charge, as the shop's guard writes it, so charge_card has evidence in the window.
    db = createPrismaClient(inject("databaseUrl"), 1);
    await db.idempotency.create({
      data: {
        key: randomBytes(32).toString("hex"),
        tenant: TENANT,
        subject: "user_1",
        tool: "charge_card",
        status: "completed",
        response: { receipt: "r_1" },
      },
    });
    // And a refund stuck in_progress for an hour (past its 5m stuckAfter): refund_charge's claim is backed, with a row unresolved.
    await db.idempotency.create({
      data: {
        key: randomBytes(32).toString("hex"),
        tenant: TENANT,
        subject: "user_1",
        tool: "refund_charge",
        status: "in_progress",
        createdAt: new Date(Date.now() - 3_600_000),
      },
    });
    // An admin limited to this file's tenant: the evidence (and so the verdicts) comes from this
    // file's rows only, whatever other test files wrote into the shared table.
    await saveUser(db, TEST_SETUP, { email: ADMIN_EMAIL, role: "admin", tenants: [TENANT], password: DEMO_PASSWORD });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await db?.$disconnect();
  });

  async function signInAsAdmin(width = 1440): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
    await page.goto(`${baseUrl}/tools`);
    await page.waitForURL(/\/sign-in\?callbackUrl=/);
    await page.fill('input[name="email"]', ADMIN_EMAIL);
    await page.fill('input[name="password"]', DEMO_PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${baseUrl}/tools`);
    return page;
  }

  it("an admin refreshes the listings: the shop's tools appear with their verdicts", async () => {
    const page = await signInAsAdmin();
    await page.click('[data-testid="refresh-listings"]'); // enabled once hydrated: playwright waits for that
    // Other test files' rows may already list tools; the server's status is what the refresh changes.
    await expect.poll(() => page.getAttribute('[data-server="shop"]', "data-status"), SERVER_RENDER).toBe("ok");
    await expect
      .poll(() => page.locator('[data-testid="tool-audit-table"] tr[data-tool]').count(), SERVER_RENDER)
      .toBeGreaterThanOrEqual(6);
    const verdictOf = (tool: string) =>
      page.getAttribute(`[data-testid="tool-audit-table"] tr[data-tool="${tool}"]`, "data-verdict");
    expect(await verdictOf("create_shipment")).toBe("claim_without_key_evidence");
    expect(await verdictOf("charge_card")).toBe("claim_backed_by_keys");
    expect(await verdictOf("get_charge_status")).toBe("read_only");
    // Declared vs effective: send_receipt_email declares nothing; the defaults apply.
    const receipt = page.locator('tr[data-tool="send_receipt_email"] [data-hint="idempotentHint"]');
    expect(await receipt.getAttribute("data-declared")).toBe("absent");
    expect(await page.isVisible('[data-testid="admin-forms"]')).toBe(true);
    // The page names the evidence window to the second and says where it starts: the start of the hour 24 h
    // before the request, so it spans 24 h to 25 h; the end is on the next day, so it carries its date.
    const [, start, end] =
      /^(\S+ \S+) – (\S+ \S+) UTC, from the start of the hour$/.exec(
        (await page.textContent('[data-testid="evidence-window"]'))?.trim() ?? "",
      ) ?? [];
    expect(start).toMatch(/ \d\d:00:00$/);
    const span = Date.parse(`${end?.replace(" ", "T")}Z`) - Date.parse(`${start?.replace(" ", "T")}Z`);
    expect(span).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(span).toBeLessThan(25 * 3_600_000);
  });

  it("the summary counts exactly the verdicts of the rows below it, in their words (page and API agree)", async () => {
    const page = await signInAsAdmin();
    const rows = page.locator('[data-testid="tool-audit-table"] tr[data-tool]');
    await expect.poll(() => rows.count(), SERVER_RENDER).toBeGreaterThanOrEqual(6);
    const rowVerdicts = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        verdict: tr.getAttribute("data-verdict") ?? "",
        word: tr.querySelector("span[data-verdict]")?.textContent?.trim() ?? "",
        uncertain: /uncertain/.test(tr.querySelector("td:last-child")?.textContent ?? ""),
      })),
    );
    const summary = await page.locator('[data-testid="verdict-counts"] [data-verdict]').evaluateAll((spans) =>
      spans.map((s) => ({
        verdict: s.getAttribute("data-verdict") ?? "",
        count: Number(s.getAttribute("data-count")),
        text: s.textContent?.replace(/^ · /, "").trim() ?? "",
      })),
    );
    const expected = new Map<string, { word: string; count: number }>();
    for (const r of rowVerdicts)
      expected.set(r.verdict, { word: r.word, count: (expected.get(r.verdict)?.count ?? 0) + 1 });
    expect(new Map(summary.map((s) => [s.verdict, { word: s.text.replace(/^\d+ /, ""), count: s.count }]))).toEqual(
      expected,
    );
    for (const s of summary) expect(s.text).toMatch(new RegExp(`^${s.count} `));
    // The bug this guards: a claim with a stuck row read "backed; unresolved rows" and was counted as "to look at".
    expect(rowVerdicts.find((r) => r.verdict === "claim_with_unresolved_rows")?.word).toBe("unresolved");
    // The shop's two status reads behave as declared: no rows, nothing contradicting, so not "uncertain".
    const readOnly = rowVerdicts.filter((r) => r.verdict === "read_only");
    expect(readOnly.length).toBeGreaterThanOrEqual(2);
    for (const r of readOnly) expect([r.word, r.uncertain]).toEqual(["as declared", false]);

    const api = await page.evaluate(() => fetch("/api/v1/tools/audit?window=24h").then((r) => r.json()));
    expect(api.summary.map((s: { verdict: string; count: number }) => [s.verdict, s.count])).toEqual(
      summary.map((s) => [s.verdict, s.count]),
    );
    expect(api.summary.reduce((n: number, s: { count: number }) => n + s.count, 0)).toBe(api.tools.length);
    // Each verdict's unresolved claims are the rows' own (stuck + awaiting an outcome), whatever the verdict's word:
    // a verified tool's stuck claims stay in the line ("also unresolved"), an unresolved tool's are its word.
    type ApiTool = { verdict: string; evidence: { stuck: number; unresolvedOutcomeUnknown: number } };
    const claimsOf = (t: ApiTool) => t.evidence.stuck + t.evidence.unresolvedOutcomeUnknown;
    for (const s of api.summary as { verdict: string; unresolved: { rows: number; claims: number } }[]) {
      const rows = (api.tools as ApiTool[]).filter((t) => t.verdict === s.verdict && claimsOf(t) > 0);
      expect(s.unresolved, s.verdict).toEqual({
        rows: rows.length,
        claims: rows.reduce((n, t) => n + claimsOf(t), 0),
      });
    }
    const alsoUnresolved = api.summary.some(
      (s: { verdict: string; unresolved: { rows: number } }) =>
        s.verdict !== "claim_with_unresolved_rows" && s.unresolved.rows > 0,
    );
    expect(await page.locator('[data-testid="verdict-also-unresolved"]').count()).toBe(alsoUnresolved ? 1 : 0);

    mkdirSync("docs/screenshots/mobile", { recursive: true });
    copyFileSync(await screenshot(page, "tools"), "docs/screenshots/tools.png");
    const phone = await signInAsAdmin(390);
    await expect
      .poll(() => phone.locator('[data-testid="tool-audit-table"] tr[data-tool]').count(), SERVER_RENDER)
      .toBeGreaterThanOrEqual(6);
    await phone.waitForSelector('[data-testid="evidence-window"]', { state: "visible" });
    copyFileSync(await screenshot(phone, "tools-mobile"), "docs/screenshots/mobile/tools.png");
  });

  it("adding a stdio server through the API is refused with the reason", async () => {
    watchPageErrors(browser).allow(/status of 400 .*\/api\/v1\/tools\/servers\)$/); // the refusal under test
    const page = await signInAsAdmin();
    const refused = await page.evaluate(() =>
      fetch("/api/v1/tools/servers", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "evil", transport: "stdio", command: "rm", args: ["-rf", "/"] }),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/only in idem\.config\.json/);
  });
});
