import { copyFileSync, mkdirSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { writeAudit } from "@/lib/audit/write-audit";
import { recordChainVerification } from "@/lib/audit/audit-chain-verifications";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import type { Actor } from "@/lib/identity/actor";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { signInInContext } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors } from "../helpers/page-errors";
import { controlsShortOfTheirWords } from "../helpers/clipped-controls";
import { seriousViolations } from "../helpers/axe";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `audit-${run}`;
const SERVER_RENDER = { timeout: 15_000, interval: 100 };
const key = (name: string) => createHash("sha256").update(`audit-browser|${run}|${name}`).digest("hex");

const reconciler: Actor = {
  kind: "system",
  id: "reconciler",
  name: "reconciler",
  displayName: "Reconciler",
  role: "operator",
  tenants: [],
};
const omar: Actor = {
  kind: "user",
  id: "omar",
  name: "operator@demo.test",
  displayName: "Omar Operator",
  role: "operator",
  tenants: [],
};

const shownActions = (page: Page) =>
  page
    .locator('[data-testid="audit-table"] tbody tr[data-action]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-action")));

describe.skipIf(browserMissing)("audit page, in Chromium", () => {
  let browser: Browser;
  let db: Db;
  const completed = key("completed");
  const released = key("released");

  beforeAll(async () => {
    // Entries as the reconciler and an operator write them, in the served console's database.
    db = createPrismaClient(inject("databaseUrl"), 1);
    await db.idempotency.create({
      data: {
        key: completed,
        tenant: TENANT,
        tool: "charge_card",
        status: "completed",
        response: { id: "ch_1", card: "c_4242" },
      },
    });
    const receipt = { id: "ch_1", status: "succeeded", amount_cents: 2400, card: "c_4242", reference: completed };
    await writeAudit(db, reconciler, {
      action: "record.complete",
      key: completed,
      tenant: TENANT,
      reason: "reconciler: the processor says the operation happened (status succeeded)",
      before: { key: completed, status: "in_progress", response: null },
      after: { key: completed, status: "completed", response: receipt },
      evidence: { outcome: "taken", receipt, evidence: { adapter: "http", status: 200 } },
    });
    await writeAudit(db, omar, {
      action: "record.release",
      key: released,
      tenant: TENANT,
      reason: "customer confirmed no charge; processor has no such reference",
      before: { key: released, status: "in_progress", tool: "charge_card" },
      evidence: { outcome: "not_taken", evidence: { adapter: "http", status: 404 } },
    });
    await writeAudit(db, reconciler, {
      action: "record.release",
      key: key("released-2"),
      tenant: TENANT,
      reason: "reconciler: the processor has no operation with this reference",
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await db?.$disconnect();
  });

  it("shows the entries written to the database, links a record only while it exists, and filters by action through the form", async () => {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const page = await signInInContext(context, "operator@demo.test", `/audit?tenant=${TENANT}`);
    await page.waitForSelector('[data-testid="audit-table"]');
    expect(await shownActions(page)).toEqual(["record.release", "record.release", "record.complete"]);
    expect(await page.locator('[data-column="actor"]').allTextContents()).toEqual([
      "system:reconciler",
      "operator@demo.test",
      "system:reconciler",
    ]);

    // The completed record exists: its ref links to it. The released one is gone: only its ref, marked.
    const link = page.locator(`[data-testid="audit-table"] a[href="/records/${completed}"]`);
    expect(await link.textContent()).toBe(completed.slice(0, 12));
    expect(await page.locator(`[data-testid="audit-table"] a[href="/records/${released}"]`).count()).toBe(0);
    expect(await page.locator(`[title^="${released}"]`).textContent()).toContain("gone");
    const time = page.locator('[data-column="time"] time').first();
    expect(await time.getAttribute("title")).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC$/);

    await page.locator('tr[data-action="record.complete"] button').click();
    await page.waitForSelector('[data-testid="audit-entry-detail"]');
    expect(await page.textContent('[data-testid="audit-entry-detail"]')).toContain('"outcome": "taken"');
    expect((await controlsShortOfTheirWords(page)).join("; "), "the filters").toBe("");
    const file = await screenshot(page, "audit");
    mkdirSync("docs/screenshots", { recursive: true });
    copyFileSync(file, "docs/screenshots/audit.png");

    // The filter form is a GET form: submitting it puts the filter in a shareable URL.
    await page.fill('input[name="action"]', "record.complete");
    await page.click('[data-testid="audit-filter-form"] button[type="submit"]');
    await page.waitForURL(/action=record\.complete/);
    await expect.poll(() => shownActions(page), SERVER_RENDER).toEqual(["record.complete"]);
    // With a filter set, "Clear filters" is one of the row's controls: Apply's height, not a taller button.
    const heights = await page.evaluate(() =>
      [
        ...document.querySelectorAll<HTMLElement>(
          '[data-testid="audit-filter-form"] button, [data-testid="audit-filter-form"] a',
        ),
      ]
        .filter((el) => /^(Apply|Clear filters)$/.test(el.textContent ?? ""))
        .map((el) => `${el.textContent}: ${el.getBoundingClientRect().height}`),
    );
    expect(heights).toEqual(["Apply: 28", "Clear filters: 28"]);
    // The filled form shows each value whole: a date as typed, the longest action in its field.
    await page.goto(`${baseUrl}/audit?action=record.force_release&from=2026-12-01&to=2026-12-02T14:05:00Z`);
    const form = '[data-testid="audit-filter-form"]';
    expect(await page.inputValue(`${form} input[name="from"]`)).toBe("2026-12-01");
    expect(await page.inputValue(`${form} input[name="to"]`)).toBe("2026-12-02T14:05Z");
    expect((await controlsShortOfTheirWords(page, { values: true })).join("; "), "the filled filters").toBe("");
    await page.goBack();
    expect(new URL(page.url()).searchParams.get("tenant")).toBe(TENANT);

    // The same URL in a fresh session shows the same entries.
    const shared = await signInInContext(
      await browser.newContext(),
      "viewer@demo.test",
      new URL(page.url()).pathname + new URL(page.url()).search,
    );
    await shared.waitForSelector('[data-testid="audit-table"]');
    expect(await shownActions(shared)).toEqual(["record.complete"]);
    // A viewer's copy of the receipt is masked.
    await shared.locator('tr[data-action="record.complete"] button').click();
    expect(await shared.textContent('[data-testid="audit-entry-detail"]')).toContain("[redacted]");
    await context.close();
  });

  it("a link with a filter the log cannot read shows why beside the form holding what it typed, to correct in place", async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await signInInContext(
      context,
      "operator@demo.test",
      `/audit?tenant=${TENANT}&action=record.complete&from=garbage&limit=7`,
    );
    const problems = page.locator('[data-testid="audit-query-problems"]');
    await problems.waitFor();
    expect(await problems.textContent()).toMatch(/from/);
    // The typed values are in the form; the refused one is marked and described by its reason; no entries are read.
    const from = page.locator('[data-testid="audit-filter-form"] input[name="from"]');
    expect(await from.inputValue()).toBe("garbage");
    expect(await from.getAttribute("aria-invalid")).toBe("true");
    const reason = await page.locator(`#${await from.getAttribute("aria-describedby")}`).textContent();
    expect(reason).toMatch(/from/);
    expect(await page.locator('input[name="action"]').inputValue()).toBe("record.complete");
    expect(await page.locator('input[name="tenant"]').inputValue()).toBe(TENANT);
    expect(await page.locator('input[name="actor"]').getAttribute("aria-invalid")).toBeNull();
    expect(await page.locator('[data-testid="audit-table"]').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "mobile-audit-refused-filter");

    // Corrected in place: the refused page size is not carried again, the rest of the filter is.
    await from.fill("");
    await page.click('[data-testid="audit-filter-form"] button[type="submit"]');
    await page.waitForSelector('[data-testid="audit-table"]');
    await expect.poll(() => shownActions(page), SERVER_RENDER).toEqual(["record.complete"]);
    const url = new URL(page.url());
    expect([url.searchParams.get("from"), url.searchParams.get("limit")]).toEqual([null, null]);
    expect(url.searchParams.get("tenant")).toBe(TENANT);
    await context.close();
  });

  it("an entry about no record says what it is about: a tool's double-call test names the tool and its verdict", async () => {
    const server = `audit-srv-${run}`;
    const admin: Actor = { ...omar, id: "ada", name: "admin@demo.test", displayName: "Ada Admin", role: "admin" };
    const entry = await writeAudit(db, admin, {
      action: "tool.verify",
      after: { server, tool: "charge_card", verdict: "failed", step: "table", summary: "two rows for one call" },
      evidence: { concurrency: 2, checks: [] },
    });
    for (const [viewport, dir] of [
      [{ width: 1440, height: 900 }, "docs/screenshots"],
      [{ width: 390, height: 844 }, "docs/screenshots/mobile"],
    ] as const) {
      const context = await browser.newContext({ viewport });
      const page = await signInInContext(context, "operator@demo.test", `/audit?id=${entry.id}`);
      const about = page.locator(`tr[data-audit-id="${entry.id}"] [data-testid="audit-about"]`);
      await expect.poll(() => about.count(), SERVER_RENDER).toBe(1);
      expect(await about.textContent()).toBe(`${server} / charge_card: failed at table`);
      expect(
        await page.locator(`tr[data-audit-id="${entry.id}"] a:has([data-testid="audit-about"])`).getAttribute("href"),
      ).toBe("/tools");
      // The API says it too.
      const body = (await page.evaluate(
        (id) => fetch(`/api/v1/audit?id=${id}`).then((r) => r.json()),
        entry.id.toString(),
      )) as {
        entries: { about: unknown }[];
      };
      expect(body.entries.map((e) => e.about)).toEqual([
        { label: `${server} / charge_card: failed at table`, href: "/tools" },
      ]);
      mkdirSync(dir, { recursive: true });
      copyFileSync(await screenshot(page, `audit-about-${viewport.width}`), `${dir}/audit-about.png`);
      await context.close();
    }
  });

  it("a tenant-limited viewer does not see other tenants' entries; the API needs a session or token", async () => {
    watchPageErrors(browser).allow(/status of 400 .*\/api\/v1\/audit\?colour=red\)$/); // the unknown filter the test sends
    const page = await signInInContext(await browser.newContext(), "acme-support@demo.test", `/audit?tenant=${TENANT}`);
    await page.waitForSelector('[data-testid="unknown-tenant"]');
    expect((await fetch(`${baseUrl}/api/v1/audit`)).status).toBe(401);
    const fromPage = await page.evaluate(() =>
      fetch("/api/v1/audit?colour=red").then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    expect(fromPage).toMatchObject({ status: 400, body: { error: { code: "bad_request", params: ["colour"] } } });
  });

  // Four pages, each with an axe run: longer than the file's 60 s on two busy cores.
  it(
    "says what the newest audit chain verification found, naming a bad entry, at 1440 and 390 px, axe-clean",
    { timeout: 240_000 },
    async () => {
      const url = inject("databaseUrl");
      const verified = await verifyAuditChain(url);
      expect(verified.ok).toBe(true);
      await recordChainVerification(db, verified, "system:browser-test");
      // A broken run as `idem audit verify` records it (the verifier's findings are tested in tests/integration/audit-chain.test.ts).
      const broken = {
        ...verified,
        ok: false,
        finishedAt: new Date(),
        throughId: "40",
        firstBad: { id: "41", chainSeq: "41", problem: "content" as const, detail: "" },
      };
      const states = [
        { name: "verified", record: verified, text: `chain verified`, detail: `through #${verified.throughId}` },
        {
          name: "broken",
          record: broken,
          text: "chain broken",
          detail: "At entry #41: content changed: the entry was edited after it was written.",
        },
      ];
      for (const state of states) {
        if (state.name === "broken") await recordChainVerification(db, state.record, "system:browser-test");
        for (const [viewport, dir] of [
          [{ width: 1440, height: 900 }, "docs/screenshots"],
          [{ width: 390, height: 844 }, "docs/screenshots/mobile"],
        ] as const) {
          const context = await browser.newContext({ viewport });
          const page = await signInInContext(context, "viewer@demo.test", `/audit?tenant=${TENANT}`);
          const status = page.locator('[data-testid="audit-chain-status"]');
          // Streamed behind a Suspense boundary: in the DOM, still hidden, until React reveals it.
          await status.waitFor({ state: "visible" });
          await expect.poll(() => status.getAttribute("data-state"), SERVER_RENDER).toBe(state.name);
          const text = (await status.textContent()) ?? "";
          expect(text).toContain(state.text);
          expect(text).toContain(state.detail);
          expect(await status.locator("time").getAttribute("datetime")).toBe(state.record.finishedAt.toISOString());
          const box = await status.boundingBox();
          expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
          expect(await seriousViolations(page)).toEqual([]);
          mkdirSync(dir, { recursive: true });
          copyFileSync(
            await screenshot(page, `audit-chain-${state.name}-${viewport.width}`),
            `${dir}/audit-chain-${state.name}.png`,
          );
          await context.close();
        }
      }
      // Leave the served database as found: verified.
      await recordChainVerification(db, { ...verified, finishedAt: new Date() }, "system:browser-test");
    },
  );
});
