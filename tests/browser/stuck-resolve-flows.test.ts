import { copyFileSync, mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { signInInContext } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { connectTestDb } from "../helpers/db";
import { addTenantUser, auditOf, charge, focusIsOn, insertStuckClaim, rowOf } from "../helpers/stuck-fixtures";
import { seriousViolations as axeSerious } from "../helpers/axe";

// Flows that end well (#16, item 3): the operator clears stuck claims from the list itself, from
// the record page and in bulk, and each ends on a confirmation that names what happened, links
// its audit entry and offers the next stuck claim; a viewer is told who can act.
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `flows-${run}`;
const BULK_TENANT = `flows-bulk-${run}`;
const OPERATOR = `flows-op-${run}@demo.test`;
const BULK_OPERATOR = `flows-bulk-${run}@demo.test`;
const FILTER_TENANT = `flows-filter-${run}`;
const FILTER_OPERATOR = `flows-filter-${run}@demo.test`;
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };

/** A screenshot for the docs (docs/screenshots, or docs/screenshots/mobile at 390 px), also kept under test-results. */
async function docShot(page: Page, name: string, options: { viewportOnly?: boolean } = {}) {
  const mobile = (page.viewportSize()?.width ?? DESKTOP.width) < 500;
  const dir = mobile ? "docs/screenshots/mobile" : "docs/screenshots";
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/${name}.png`;
  // A modal dialog is drawn over the viewport: the whole page's picture would show it adrift.
  if (options.viewportOnly) await page.screenshot({ path: file });
  else copyFileSync(await screenshot(page, `${name}${mobile ? "-mobile" : ""}`), file);
}

const confirmation = '[data-testid="resolve-confirmation"]';

/** axe-core's serious and critical findings on the page as it is now (an open dialog, an inline answer). */
async function seriousViolations(page: Page) {
  // A refresh after a resolve streams the page again, its <title> with the metadata at the end: judge the
  // page once it has one (CI caught axe reading "document-title" mid-stream).
  await page.waitForFunction(() => document.title.trim() !== "");
  return axeSerious(page);
}

describe.skipIf(browserMissing)("stuck claims end on a confirmation, in Chromium", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  const db = connectTestDb();
  let browser: Browser;
  let pageErrors: PageErrorWatch;

  beforeAll(async () => {
    await addTenantUser(db, OPERATOR, "operator", [TENANT]);
    await addTenantUser(db, BULK_OPERATOR, "operator", [BULK_TENANT]);
    await addTenantUser(db, FILTER_OPERATOR, "operator", [FILTER_TENANT]);
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  async function operatorPage(email: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport });
    return { context, page: await signInInContext(context, email, "/stuck") };
  }

  it("on the stuck list: ask on a row, the answer inline, release with a reason, then the confirmation with its audit entry and the next claim", async () => {
    const oldest = await insertStuckClaim(pool, { tenant: TENANT, label: "oldest", minutesAgo: 50 });
    const released = await insertStuckClaim(pool, { tenant: TENANT, label: "released", minutesAgo: 40 });
    const { context, page } = await operatorPage(OPERATOR);
    await charge(page, oldest);
    await page.goto(`${baseUrl}/stuck`);
    const row = `tr[data-key="${released}"]`;
    await page.click(`${row} [data-testid="row-ask"]`);
    await page.waitForSelector(`${row} [data-testid="row-answer"][data-outcome="not_taken"]`);
    expect(await focusIsOn(page, `${row} [data-testid="row-answer"]`), "focus moves to the answer").toBe(true);
    // Only the action the answer allows, and only with a reason.
    expect(await page.locator(`${row} [data-testid="row-complete"]`).count()).toBe(0);
    expect(await page.isDisabled(`${row} [data-testid="row-release"]`)).toBe(true);
    await page.click(`tr[data-key="${oldest}"] [data-testid="row-ask"]`);
    await page.waitForSelector(`tr[data-key="${oldest}"] [data-testid="row-answer"][data-outcome="taken"]`);
    await page.mouse.move(0, 0); // no hover left on the last button pressed
    expect(await seriousViolations(page), "the list with inline answers").toEqual([]);
    await docShot(page, "stuck-inline");
    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto(`${baseUrl}/stuck`);
    await phone.click(`${row} [data-testid="row-ask"]`);
    await phone.waitForSelector(`${row} [data-testid="row-answer"][data-outcome="not_taken"]`);
    await docShot(phone, "stuck-inline");
    await phone.close();
    expect(await rowOf(pool, released)).toMatchObject({ status: "in_progress" }); // asking changes nothing

    await page.fill(`${row} [data-testid="row-reason"]`, "ticket 5120: processor has no such charge");
    await page.click(`${row} [data-testid="row-release"]`);
    await page.waitForSelector(confirmation);
    expect(await focusIsOn(page, confirmation), "focus moves to the confirmation").toBe(true);
    expect(await page.textContent(confirmation)).toContain(
      `Released claim ${released.slice(0, 12)} for charge_card (tenant ${TENANT}): the next retry will execute it again.`,
    );
    // The row is gone from the list; the confirmation stays above it.
    await expect.poll(() => page.locator(row).count()).toBe(0);
    expect(await page.isVisible(confirmation)).toBe(true);

    // In the table: the row is gone, once, with one audit entry carrying the reason.
    expect(await rowOf(pool, released)).toBeNull();
    const audit = await auditOf(pool, released);
    expect(audit.map(({ action, actor, reason }) => ({ action, actor, reason }))).toEqual([
      { action: "record.release", actor: OPERATOR, reason: "ticket 5120: processor has no such charge" },
    ]);
    expect(await page.getAttribute(confirmation, "data-audit-id")).toBe(audit[0]?.id);
    expect(await page.getAttribute('[data-testid="next-stuck-link"]', "href")).toBe(`/records/${oldest}`);
    await docShot(page, "resolved-confirmation");
    expect(await seriousViolations(page), "the list with the confirmation").toEqual([]);

    // The audit link opens exactly that entry.
    await page.click('[data-testid="confirmation-audit-link"]');
    await page.waitForURL(new RegExp(`/audit\\?id=${audit[0]?.id}$`));
    await page.waitForSelector('[data-testid="audit-table"]');
    const entries = await page
      .locator('[data-testid="audit-table"] tbody tr[data-action]')
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-action")));
    expect(entries).toEqual(["record.release"]);
    expect(await page.textContent('[data-testid="audit-table"]')).toContain("ticket 5120");
    await page.goBack();
    await page.waitForSelector('[data-testid="stuck-table"]');

    const phoneConfirm = await context.newPage();
    await phoneConfirm.setViewportSize(PHONE);
    await phoneConfirm.goto(`${baseUrl}/records/${released}?resolved=${audit[0]?.id}`);
    await phoneConfirm.waitForSelector(confirmation);
    await docShot(phoneConfirm, "resolved-confirmation");
    await phoneConfirm.close();
    await context.close();
  });

  it("filtered to a tool, the next stuck claim offered is that tool's, and at its end 'no more for tool …', not an older claim of another tool", async () => {
    const other = await insertStuckClaim(pool, {
      tenant: FILTER_TENANT,
      label: "other-tool",
      minutesAgo: 90,
      tool: "refund_charge",
    });
    const first = await insertStuckClaim(pool, { tenant: FILTER_TENANT, label: "first", minutesAgo: 60 });
    const second = await insertStuckClaim(pool, { tenant: FILTER_TENANT, label: "second", minutesAgo: 55 });
    const { context, page } = await operatorPage(FILTER_OPERATOR);
    const release = async (key: string) => {
      const row = `tr[data-key="${key}"]`;
      await page.click(`${row} [data-testid="row-ask"]`);
      await page.waitForSelector(`${row} [data-testid="row-answer"][data-outcome="not_taken"]`);
      await page.fill(`${row} [data-testid="row-reason"]`, "ticket 5130: processor has no such charge");
      await page.click(`${row} [data-testid="row-release"]`);
      await page.waitForSelector(`${confirmation}[data-audit-id]`);
      await expect.poll(() => page.locator(row).count()).toBe(0);
    };
    await page.goto(`${baseUrl}/stuck?tool=charge_card`);
    await page.waitForSelector(`tr[data-key="${second}"]`);
    expect(await page.locator(`tr[data-key="${other}"]`).count()).toBe(0);
    await release(second);
    // The oldest stuck claim this operator can see is refund_charge's; the list they work in is charge_card's,
    // and the record page the link opens keeps to it.
    expect(await page.getAttribute('[data-testid="next-stuck-link"]', "href")).toBe(
      `/records/${first}?stuckTool=charge_card`,
    );
    expect(await page.textContent('[data-testid="next-stuck-link"]')).toMatch(
      /^Next stuck claim \(tool charge_card\): [0-9a-f]{12} charge_card, tenant /,
    );
    await screenshot(page, "stuck-filtered-next");
    await page.setViewportSize(PHONE);
    await screenshot(page, "stuck-filtered-next-mobile");
    await page.setViewportSize(DESKTOP);
    await release(first);
    expect(await page.textContent('[data-testid="no-more-stuck"]')).toBe(
      "No more stuck claims for tool charge_card. All stuck claims",
    );
    expect(await page.getAttribute('[data-testid="no-more-stuck"] a', "href")).toBe("/stuck");
    expect(await rowOf(pool, other)).toMatchObject({ status: "in_progress" });
    await context.close();
  });

  it("a conflicting compare-and-set on a row shows the conflict, not a success, and changes nothing", async () => {
    const key = await insertStuckClaim(pool, { tenant: TENANT, label: "conflict", minutesAgo: 35 });
    const { context, page } = await operatorPage(OPERATOR);
    await page.goto(`${baseUrl}/stuck`);
    const row = `tr[data-key="${key}"]`;
    await page.click(`${row} [data-testid="row-ask"]`);
    await page.waitForSelector(`${row} [data-testid="row-answer"][data-outcome="not_taken"]`);
    // A writer touches the row after the list was rendered: the version the list holds is stale.
    await pool.query(`UPDATE idempotency SET updated_at = now() WHERE key = $1`, [key]);
    pageErrors.allow(/status of 409 .*\/api\/v1\/records\/[0-9a-f]{64}\/resolve\)$/);
    await page.fill(`${row} [data-testid="row-reason"]`, "ticket 5121: processor has no such charge");
    await page.click(`${row} [data-testid="row-release"]`);
    await page.waitForSelector(`${row} [data-testid="row-conflict"]`);
    expect(await focusIsOn(page, `${row} [data-testid="row-conflict"]`)).toBe(true);
    expect(await page.textContent(`${row} [data-testid="row-conflict"]`)).toContain("nothing was overwritten");
    expect(await page.locator(confirmation).count()).toBe(0);
    expect(await rowOf(pool, key)).toMatchObject({ status: "in_progress" });
    expect(await auditOf(pool, key)).toEqual([]);
    await context.close();
  });

  it("on the record page: completing ends on the confirmation; a release ends on it too (with the fate card), never on 'Nothing here', even reloaded", async () => {
    const completed = await insertStuckClaim(pool, { tenant: TENANT, label: "record-complete", minutesAgo: 45 });
    const released = await insertStuckClaim(pool, { tenant: TENANT, label: "record-release", minutesAgo: 44 });
    const { context, page } = await operatorPage(OPERATOR);
    await charge(page, completed);

    await page.goto(`${baseUrl}/records/${completed}`);
    await page.click('button:has-text("Ask the processor")');
    await page.waitForSelector('[data-testid="processor-outcome"][data-outcome="taken"]');
    await page.fill('textarea[name="reason"]', "ticket 5122: the charge went through");
    await page.click('[data-testid="resolve-complete"]');
    await page.waitForURL(/\?resolved=\d+$/);
    await page.waitForSelector(`${confirmation}[data-action="complete"]`);
    await expect.poll(() => focusIsOn(page, confirmation)).toBe(true);
    expect(await page.textContent(confirmation)).toContain(
      `Completed claim ${completed.slice(0, 12)} for charge_card (tenant ${TENANT}) with the processor's receipt`,
    );
    expect(await page.textContent('[data-testid="record-status"]')).toBe("completed");
    expect(await rowOf(pool, completed)).toMatchObject({ status: "completed" });
    expect((await auditOf(pool, completed)).map((a) => [a.action, a.reason])).toEqual([
      ["record.complete", "ticket 5122: the charge went through"],
    ]);

    await page.goto(`${baseUrl}/records/${released}`);
    await page.click('button:has-text("Ask the processor")');
    await page.waitForSelector('[data-testid="processor-outcome"][data-outcome="not_taken"]');
    await page.fill('textarea[name="reason"]', "ticket 5123: never reached the processor");
    await page.click('[data-testid="resolve-release"]');
    await page.waitForURL(/\?resolved=\d+$/);
    await page.waitForSelector(`${confirmation}[data-action="release"]`);
    await expect.poll(() => focusIsOn(page, confirmation)).toBe(true);
    expect(await page.textContent("main")).not.toContain("Nothing here");
    expect(await page.textContent(confirmation)).toContain(`Released claim ${released.slice(0, 12)}`);
    expect(await page.isVisible('[data-testid="ref-fate"]')).toBe(true);
    await page.reload();
    await page.waitForSelector(confirmation);
    expect(await page.locator("h1", { hasText: "Nothing here" }).count()).toBe(0);
    expect(await rowOf(pool, released)).toBeNull();
    expect((await auditOf(pool, released)).map((a) => a.action)).toEqual(["record.release"]);
    // A confirmation is only ever an audit entry of this key: another key's entry confirms nothing.
    const other = (await auditOf(pool, completed))[0]?.id;
    await page.goto(`${baseUrl}/records/${released}?resolved=${other}`);
    await page.waitForSelector('[data-testid="ref-fate"]');
    expect(await page.locator(confirmation).count()).toBe(0);
    await context.close();
  });

  it("the bulk plan opens as a modal dialog in view with its summary; Escape closes it and focus returns; applying shows the result there", async () => {
    const taken = await insertStuckClaim(pool, { tenant: BULK_TENANT, label: "taken", minutesAgo: 30 });
    const notTaken = await insertStuckClaim(pool, { tenant: BULK_TENANT, label: "not-taken", minutesAgo: 29 });
    // A tool no processor answers for: the plan leaves it, and says why.
    const unknown = await insertStuckClaim(pool, {
      tenant: BULK_TENANT,
      label: "unknown",
      minutesAgo: 28,
      tool: "no_processor_tool",
    });
    // 50 more stuck rows below, so the table is long (the plan used to render under it).
    for (let i = 0; i < 50; i++)
      await insertStuckClaim(pool, { tenant: BULK_TENANT, label: `filler-${i}`, minutesAgo: 20 - i / 10 });
    const { context, page } = await operatorPage(BULK_OPERATOR);
    await charge(page, taken);
    await page.goto(`${baseUrl}/stuck?limit=100`);
    await page.waitForSelector('[data-testid="stuck-table"]');
    // Scrolled down to the rows, as an operator picking them would be.
    await page.locator(`tr[data-key="${taken}"]`).scrollIntoViewIfNeeded();
    await page.check(`tr[data-key="${taken}"] input[type="checkbox"]`);
    await page.check(`tr[data-key="${notTaken}"] input[type="checkbox"]`);
    await page.focus('[data-testid="plan-selected"]');
    await page.keyboard.press("Enter");
    const dialog = '[data-testid="bulk-plan"]';
    await page.waitForSelector(`${dialog}[data-phase="planned"]`);
    expect(await page.$eval(dialog, (d) => d.matches("dialog:modal"))).toBe(true);
    await expect.poll(() => focusIsOn(page, '[data-testid="bulk-plan-summary"]')).toBe(true);
    const box = await page.locator('[data-testid="bulk-plan-summary"]').boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= DESKTOP.height, "the summary is in view").toBe(true);
    expect(await page.isVisible('[data-testid="bulk-apply"]')).toBe(true);
    expect(await page.textContent('[data-testid="bulk-plan-totals"]')).toMatch(/1 to complete.*1 to release.*0 left/);

    // Focus stays in the dialog: Tab never reaches the page behind it (inert while it is modal).
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Tab");
      const outside = await page.evaluate((d) => {
        const active = document.activeElement;
        return active !== null && active !== document.body && !document.querySelector(d)?.contains(active);
      }, dialog);
      expect(outside, `Tab ${i + 1} left the dialog`).toBe(false);
    }
    // Escape closes it and focus is back on the button that opened it.
    await page.keyboard.press("Escape");
    await expect.poll(() => page.locator(dialog).count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("plan-selected");

    // Again with the claim no processor answers for: it is skipped, and the summary says why.
    await page.check(`tr[data-key="${unknown}"] input[type="checkbox"]`);
    await page.click('[data-testid="plan-selected"]');
    await page.waitForSelector(`${dialog}[data-phase="planned"]`);
    expect(await page.textContent('[data-testid="bulk-plan-totals"]')).toMatch(/1 to complete.*1 to release.*1 left/);
    expect(await page.textContent('[data-testid="bulk-plan-skipped"]')).toContain(
      "1 skipped: no processor configured for tool no_processor_tool. Asking again cannot help",
    );
    await page.fill('input[name="bulk-reason"]', "processor timeouts at 03:00");
    await docShot(page, "bulk-plan", { viewportOnly: true });
    expect(await seriousViolations(page), "the open bulk plan").toEqual([]);
    expect([(await rowOf(pool, taken))?.status, (await rowOf(pool, notTaken))?.status]).toEqual([
      "in_progress",
      "in_progress",
    ]);
    await page.click('[data-testid="bulk-apply"]');
    await page.waitForSelector('[data-testid="bulk-apply-totals"]');
    await expect.poll(() => focusIsOn(page, '[data-testid="bulk-apply-totals"]')).toBe(true);
    expect(await page.textContent('[data-testid="bulk-apply-totals"]')).toContain(
      "Applied: 1 completed with the processor's receipt, 1 released (the next retry will execute it again); 0 conflict",
    );
    // The dialog no longer calls itself a dry run once applied.
    expect(
      await page
        .getByRole("dialog")
        .getAttribute("aria-labelledby")
        .then((id) => page.textContent(`[id="${id}"]`)),
    ).toBe("Bulk plan, applied");
    expect(await rowOf(pool, taken)).toMatchObject({ status: "completed" });
    expect(await rowOf(pool, notTaken)).toBeNull();
    expect((await auditOf(pool, taken)).map((a) => [a.action, a.reason])).toEqual([
      ["record.complete", "bulk: processor timeouts at 03:00"],
    ]);
    expect((await auditOf(pool, notTaken)).map((a) => a.action)).toEqual(["record.release"]);
    // The oldest claim still stuck in this operator's tenant is offered next.
    expect(await page.getAttribute(`${dialog} [data-testid="next-stuck-link"]`, "href")).toMatch(
      /^\/records\/[0-9a-f]{64}$/,
    );
    expect(await rowOf(pool, unknown)).toMatchObject({ status: "in_progress" });
    expect(await auditOf(pool, unknown)).toEqual([]);
    await context.close();

    const phone = await operatorPage(BULK_OPERATOR, PHONE);
    await phone.page.goto(`${baseUrl}/stuck`);
    await phone.page.click('[data-testid="plan-all"]');
    await phone.page.waitForSelector(`${dialog}[data-phase="planned"]`);
    await docShot(phone.page, "bulk-plan", { viewportOnly: true });
    await phone.context.close();
  });

  it("a viewer's stuck record says who can act and offers its link to copy; the stuck list shows no resolve controls", async () => {
    const key = await insertStuckClaim(pool, { tenant: TENANT, label: "viewer", minutesAgo: 33 });
    const context = await browser.newContext({ viewport: DESKTOP });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseUrl });
    const page = await signInInContext(context, "viewer@demo.test", `/records/${key}`);
    await page.waitForSelector('[data-testid="ask-an-operator"]');
    expect(await page.textContent('[data-testid="ask-an-operator"]')).toContain(
      "An operator or admin can resolve this claim.",
    );
    expect(await page.locator('[data-testid="resolve-panel"]').count()).toBe(0);
    expect(await page.textContent('[data-testid="record-link"]')).toBe(`${baseUrl}/records/${key}`);
    const copy = page.locator('[data-testid="ask-an-operator"] button');
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`${baseUrl}/records/${key}`);
    await docShot(page, "record-viewer-stuck");
    expect(await seriousViolations(page), "the viewer's stuck record").toEqual([]);

    // A tool nobody can be asked about: no asking offered, and only an admin's forced release can clear it.
    const email = await insertStuckClaim(pool, {
      tenant: TENANT,
      label: "viewer-email",
      minutesAgo: 32,
      tool: "send_receipt_email",
    });
    await page.goto(`${baseUrl}/records/${email}`);
    await page.waitForSelector('[data-testid="ask-an-operator"]');
    expect(await page.textContent('[data-testid="ask-an-operator"]')).toContain(
      "An admin can release this claim by force.Your role cannot change the record.",
    );
    expect(await page.getByRole("region", { name: "No processor to ask" }).count()).toBe(1);
    expect(await page.locator('button:has-text("Ask the processor")').count()).toBe(0);
    expect(await seriousViolations(page), "the viewer's stuck record, nobody to ask").toEqual([]);

    await page.goto(`${baseUrl}/stuck?tenant=${TENANT}`);
    await page.waitForSelector(`tr[data-key="${key}"]`);
    // The row asks the processor (read-only) and offers nothing that changes a claim.
    expect(await page.locator(`tr[data-key="${key}"] [data-testid="row-ask"]`).count()).toBe(1);
    expect(
      await page
        .locator('[data-testid="row-reason"], [data-testid="row-complete"], [data-testid="row-release"]')
        .count(),
    ).toBe(0);
    expect(await page.locator('[data-testid="plan-selected"]').count()).toBe(0);
    expect(await page.textContent('[data-testid="stuck-ask-operator"]')).toContain(
      "Ask the processor from a row; an operator or admin can resolve these claims",
    );
    // The API refuses a viewer anyway.
    pageErrors.allow(/status of 403 .*\/api\/v1\/records\/[0-9a-f]{64}\/resolve\)$/);
    const refused = await page.evaluate(
      (k) =>
        fetch(`/api/v1/records/${k}/resolve`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ action: "release", reason: "viewer tries", expectedUpdatedAt: null }),
        }).then((r) => r.status),
      key,
    );
    expect(refused).toBe(403);
    expect(await rowOf(pool, key)).toMatchObject({ status: "in_progress" });
    await context.close();

    const phone = await browser.newContext({ viewport: PHONE });
    const phonePage = await signInInContext(phone, "viewer@demo.test", `/records/${key}`);
    await phonePage.waitForSelector('[data-testid="ask-an-operator"]');
    await docShot(phonePage, "record-viewer-stuck");
    await phone.close();
  });
});
