import { copyFileSync, mkdirSync } from "node:fs";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { signInInContext } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { connectTestDb } from "../helpers/db";
import { addTenantUser, auditOf, charge, insertStuckClaim, rowOf } from "../helpers/stuck-fixtures";
import { seriousViolations as axeSerious } from "../helpers/axe";

// What got in a new operator's way on the Stuck page (issue #29, "Operators"): the list's order,
// a disabled button that looked enabled, a column that moved, a dialog that did not say what it
// did, and "ask again later" for a tool nobody can be asked about.
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const ORDER_TENANT = `ops-order-${run}`;
const BULK_TENANT = `ops-bulk-${run}`;
const OPERATOR = `ops-op-${run}@demo.test`;
const ADMIN = `ops-admin-${run}@demo.test`;
const FORCE_TENANT = `ops-force-${run}`;
const FORCE_ADMIN = `ops-force-admin-${run}@demo.test`;
const VIEW_TENANT = `ops-view-${run}`;
const VIEWER = `ops-viewer-${run}@demo.test`;
const DESKTOP = { width: 1440, height: 900 };
const PHONE = { width: 390, height: 844 };
const dialog = '[data-testid="bulk-plan"]';

async function docShot(page: Page, name: string, options: { viewportOnly?: boolean } = {}) {
  const mobile = (page.viewportSize()?.width ?? DESKTOP.width) < 500;
  const dir = mobile ? "docs/screenshots/mobile" : "docs/screenshots";
  mkdirSync(dir, { recursive: true });
  const file = `${dir}/${name}.png`;
  if (options.viewportOnly) await page.screenshot({ path: file });
  else copyFileSync(await screenshot(page, `${name}${mobile ? "-mobile" : ""}`), file);
}

async function seriousViolations(page: Page) {
  await page.waitForFunction(() => document.title.trim() !== "");
  return axeSerious(page);
}

/** The listed claims' keys, top to bottom. */
function listedKeys(page: Page): Promise<string[]> {
  return page
    .locator('[data-testid="stuck-table"] tbody tr[data-key]')
    .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-key") ?? ""));
}

/** Lightness 0..1 of a computed colour (Chromium reports Tailwind 4's colours as lab or oklch; else sRGB). */
function lightness(color: string): number {
  const lab = /^(ok)?l(?:ab|ch)\(([\d.]+)(%?)/.exec(color);
  if (lab) return Number(lab[2]) / (lab[3] || !lab[1] ? 100 : 1);
  const [r, g, b] = (color.match(/[\d.]+/g) ?? ["0", "0", "0"]).map(Number) as [number, number, number];
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

function buttonLook(page: Page, selector: string) {
  return page.$eval(selector, (el) => {
    const style = getComputedStyle(el);
    return { background: style.backgroundColor, color: style.color, cursor: style.cursor };
  });
}

/** Where each column of the first row's cells starts and how wide it is. */
function columnBoxes(page: Page, key: string) {
  return page.$$eval(`tr[data-key="${key}"] td[data-column]`, (tds) =>
    tds.map((td) => {
      const box = td.getBoundingClientRect();
      return `${td.getAttribute("data-column")}@${Math.round(box.left)}+${Math.round(box.width)}`;
    }),
  );
}

describe.skipIf(browserMissing)("the Stuck page for a new operator, in Chromium", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  const db = connectTestDb();
  let browser: Browser;
  let pageErrors: PageErrorWatch;

  beforeAll(async () => {
    await addTenantUser(db, OPERATOR, "operator", [ORDER_TENANT]);
    await addTenantUser(db, ADMIN, "admin", [BULK_TENANT]);
    await addTenantUser(db, FORCE_ADMIN, "admin", [FORCE_TENANT]);
    await addTenantUser(db, VIEWER, "viewer", [VIEW_TENANT]);
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  async function signedIn(email: string, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport });
    return { context, page: await signInInContext(context, email, "/stuck") };
  }

  it("oldest first by default, the same claim 'next stuck claim' names; newest first on request, in the URL", async () => {
    const oldest = await insertStuckClaim(pool, { tenant: ORDER_TENANT, label: "oldest", minutesAgo: 70 });
    const middle = await insertStuckClaim(pool, { tenant: ORDER_TENANT, label: "middle", minutesAgo: 50 });
    const newest = await insertStuckClaim(pool, { tenant: ORDER_TENANT, label: "newest", minutesAgo: 30 });
    const { context, page } = await signedIn(OPERATOR);
    await page.goto(`${baseUrl}/stuck`);
    await page.waitForSelector('[data-testid="stuck-table"]');
    expect(await listedKeys(page)).toEqual([oldest, middle, newest]);
    expect(await page.inputValue('[data-testid="stuck-order"]')).toBe("oldest");
    expect(await seriousViolations(page), "the stuck page").toEqual([]);
    // A hovered row keeps its captions readable too.
    await page.hover(`tr[data-key="${middle}"] [data-column="threshold"]`);
    expect(await seriousViolations(page), "the stuck page, a row hovered").toEqual([]);
    await page.mouse.move(0, 0);
    await docShot(page, "stuck");

    await page.selectOption('[data-testid="stuck-order"]', "newest");
    await page.waitForURL(/[?&]order=newest/);
    await expect.poll(() => listedKeys(page), { timeout: 10_000 }).toEqual([newest, middle, oldest]);
    // Shareable: the URL alone opens the same order.
    await page.goto(`${baseUrl}/stuck?order=newest`);
    expect(await listedKeys(page)).toEqual([newest, middle, oldest]);
    await page.selectOption('[data-testid="stuck-order"]', "oldest");
    await expect.poll(() => listedKeys(page), { timeout: 10_000 }).toEqual([oldest, middle, newest]);
    expect(page.url()).not.toContain("order=");

    const phone = await context.newPage();
    await phone.setViewportSize(PHONE);
    await phone.goto(`${baseUrl}/stuck`);
    await phone.waitForSelector('[data-testid="stuck-table"]');
    await docShot(phone, "stuck");
    await context.close();
  });

  it("a disabled button looks disabled (pale, not-allowed), lighter than the enabled one beside it, hovered or not", async () => {
    await insertStuckClaim(pool, { tenant: ORDER_TENANT, label: "button", minutesAgo: 25 });
    const { context, page } = await signedIn(OPERATOR);
    await page.goto(`${baseUrl}/stuck`);
    await page.waitForSelector('[data-testid="stuck-table"]');
    const selected = '[data-testid="plan-selected"]';
    expect(await page.isDisabled(selected)).toBe(true);
    await page.hover(selected, { force: true });
    const disabled = await buttonLook(page, selected);
    const enabledBeside = await buttonLook(page, '[data-testid="plan-all"]');
    expect(disabled.cursor).toBe("not-allowed");
    expect(lightness(disabled.background), `disabled ${disabled.background}`).toBeGreaterThan(0.9);
    // Its words are grey, not the white of an enabled primary button or the dark of a secondary one.
    expect(lightness(disabled.color)).toBeGreaterThan(0.4);
    expect(lightness(disabled.color)).toBeLessThan(lightness(disabled.background));
    expect(lightness(disabled.background)).toBeGreaterThanOrEqual(lightness(enabledBeside.background) - 0.05);
    await page.check('[data-testid="stuck-table"] tbody tr[data-key] input[type="checkbox"]');
    await page.mouse.move(0, 0);
    // transition-colors: the face eases from pale to dark over 150 ms.
    await expect
      .poll(async () => lightness((await buttonLook(page, selected)).background), { timeout: 5_000 })
      .toBeLessThan(0.4);
    expect((await buttonLook(page, selected)).cursor).not.toBe("not-allowed");
    await context.close();
  });

  it("a viewer asks the processor from a row and reads its answer, with no control to resolve and who can act named, at 1440 and 390 px", async () => {
    const taken = await insertStuckClaim(pool, { tenant: VIEW_TENANT, label: "taken", minutesAgo: 45 });
    const notTaken = await insertStuckClaim(pool, { tenant: VIEW_TENANT, label: "not-taken", minutesAgo: 44 });
    for (const viewport of [DESKTOP, PHONE]) {
      const { context, page } = await signedIn(VIEWER, viewport);
      if (viewport === DESKTOP) await charge(page, taken);
      await page.goto(`${baseUrl}/stuck`);
      await page.waitForSelector('[data-testid="stuck-table"]');
      if (viewport === DESKTOP)
        expect(await page.locator('[data-testid="stuck-table"] thead th').allTextContents()).toContain("Processor");
      for (const [key, outcome, verb] of [
        [taken, "taken", "complete"],
        [notTaken, "not_taken", "release"],
      ] as const) {
        const row = `tr[data-key="${key}"]`;
        await page.click(`${row} [data-testid="row-ask"]`);
        await page.waitForSelector(`${row} [data-testid="row-answer"][data-outcome="${outcome}"]`);
        expect(await page.textContent(`${row} [data-testid="row-operator-note"]`)).toBe(
          `An operator or admin can ${verb} it: open the record to copy its link for them.`,
        );
        expect(await page.getAttribute(`${row} [data-testid="row-operator-note"] a`, "href")).toMatch(
          new RegExp(`^/records/${key}`),
        );
        expect(await page.locator(`${row} [data-testid="row-reason"]`).count()).toBe(0);
        expect(
          await page.locator(`${row} [data-testid="row-complete"], ${row} [data-testid="row-release"]`).count(),
        ).toBe(0);
      }
      expect(await seriousViolations(page), `the stuck page as a viewer at ${viewport.width} px`).toEqual([]);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, `the stuck page at ${viewport.width} px`).toBeLessThanOrEqual(viewport.width);
      await docShot(page, "stuck-viewer-asked");
      await context.close();
    }
    // Asking changed nothing: both claims are still in_progress, and nothing was audited.
    const { rows } = await pool.query<{ status: string }>(`SELECT status FROM idempotency WHERE key = ANY($1)`, [
      [taken, notTaken],
    ]);
    expect(rows.map((r) => r.status)).toEqual(["in_progress", "in_progress"]);
    expect((await pool.query(`SELECT 1 FROM audit_log WHERE key = ANY($1)`, [[taken, notTaken]])).rowCount).toBe(0);
  });

  it("opening an answer in the Resolve column moves no column sideways", async () => {
    const key = await insertStuckClaim(pool, { tenant: ORDER_TENANT, label: "shift", minutesAgo: 65 });
    const { context, page } = await signedIn(OPERATOR);
    await page.goto(`${baseUrl}/stuck`);
    const row = `tr[data-key="${key}"]`;
    await page.waitForSelector(row);
    const before = await columnBoxes(page, key);
    await page.click(`${row} [data-testid="row-ask"]`);
    await page.waitForSelector(`${row} [data-testid="row-answer"][data-outcome="not_taken"]`);
    await page.waitForSelector(`${row} [data-testid="row-release"]`);
    expect(await columnBoxes(page, key)).toEqual(before);
    await context.close();
  });

  it("the bulk dialog: a plain 'Plan for all N matching', no-processor rows say what helps and link the forced release, and after apply it says what happened", async () => {
    const taken = await insertStuckClaim(pool, { tenant: BULK_TENANT, label: "taken", minutesAgo: 40 });
    const notTaken = await insertStuckClaim(pool, { tenant: BULK_TENANT, label: "not-taken", minutesAgo: 39 });
    const email = await insertStuckClaim(pool, {
      tenant: BULK_TENANT,
      label: "email",
      minutesAgo: 38,
      tool: "send_receipt_email",
    });
    const { context, page } = await signedIn(ADMIN);
    await charge(page, taken);
    await page.goto(`${baseUrl}/stuck`);
    await page.waitForSelector('[data-testid="stuck-table"]');
    // On the row itself: nobody can be asked, so nothing offers to; it says so and links the forced release.
    const note = `tr[data-key="${email}"] [data-testid="nobody-to-ask"]`;
    expect(await page.textContent(note)).toBe(
      "No processor to ask for send_receipt_email. Force release on the record page",
    );
    expect(await page.getAttribute(`${note} a`, "href")).toBe(`/records/${email}#resolve`);
    expect(await page.locator(`tr[data-key="${email}"] [data-testid="row-ask"]`).count()).toBe(0);
    expect(await page.locator(`tr[data-key="${taken}"] [data-testid="row-ask"]`).count()).toBe(1);
    expect(await page.textContent('[data-testid="plan-all"]')).toBe("Plan for all 3 matching");
    await page.click('[data-testid="plan-all"]');
    await page.waitForSelector(`${dialog}[data-phase="planned"]`);
    const description = () => page.getByRole("dialog").locator("p").first().textContent();
    expect(await description()).toBe(
      "Dry run over every stuck claim: each claim's processor was asked where one is configured. Nothing changes until you apply.",
    );
    // Oldest first, as on the list.
    const planned = await page
      .locator(`${dialog} tbody tr[data-key]`)
      .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-key")));
    expect(planned).toEqual([taken, notTaken, email]);
    const skipped = (await page.textContent('[data-testid="bulk-plan-skipped"]')) ?? "";
    expect(skipped).toContain(
      "1 skipped: no processor configured for tool send_receipt_email. Asking again cannot help",
    );
    expect(skipped).toContain("tools.send_receipt_email.processor");
    expect(skipped).not.toContain("ask again later");
    const force = page.locator(`${dialog} tr[data-key="${email}"] [data-testid="force-release-link"]`);
    expect(await force.getAttribute("href")).toBe(`/records/${email}#resolve`);
    await page.fill('input[name="bulk-reason"]', "processor timeouts at 03:00");
    await page.mouse.move(0, 0);
    expect(await seriousViolations(page), "the open bulk plan").toEqual([]);
    await docShot(page, "bulk-plan", { viewportOnly: true });

    await page.click('[data-testid="bulk-apply"]');
    await page.waitForSelector(`${dialog}[data-phase="applied"]`);
    await page.waitForSelector('[data-testid="bulk-apply-totals"]');
    expect(await description()).toBe(
      "Applied over every stuck claim: 1 completed, 1 released; 1 left as it was. The audit log holds each change.",
    );
    expect(await page.textContent(dialog)).not.toContain("nothing changes until you apply");
    expect(await page.textContent(dialog)).not.toContain("Nothing changes until you apply");
    expect(await rowOf(pool, taken)).toMatchObject({ status: "completed" });
    expect(await rowOf(pool, notTaken)).toBeNull();
    expect(await rowOf(pool, email)).toMatchObject({ status: "in_progress" });
    expect(await auditOf(pool, email)).toEqual([]);
    await page.mouse.move(0, 0);
    expect(await seriousViolations(page), "the applied bulk plan").toEqual([]);
    await docShot(page, "bulk-plan-applied", { viewportOnly: true });

    // The link leads to the record's forced release, open without asking: nobody can be asked.
    await force.click();
    await page.waitForURL(new RegExp(`/records/${email}#resolve$`));
    await page.waitForSelector('[data-testid="force-release"]');
    expect(await page.textContent('[data-testid="nobody-to-ask"]')).toMatch(
      /^There is no processor to ask for send_receipt_email: configure a processor .* forced release on this page/,
    );
    expect(await page.locator('button:has-text("Ask again"), button:has-text("Ask the processor")').count()).toBe(0);
    expect(await page.textContent('[data-testid="resolve-panel"]')).not.toContain("ask again later");
    expect(await page.isVisible('[data-testid="force-release"]')).toBe(true);
    // The forced release says what it waits for: the reason first, then the typed confirmation.
    expect(await page.textContent('[data-testid="force-release-why"]')).toBe("Write the reason above first.");
    await context.close();

    // At 390 px: before and after apply.
    const more = await insertStuckClaim(pool, { tenant: BULK_TENANT, label: "phone", minutesAgo: 37 });
    const phone = await signedIn(ADMIN, PHONE);
    await phone.page.goto(`${baseUrl}/stuck`);
    await phone.page.click('[data-testid="plan-all"]');
    await phone.page.waitForSelector(`${dialog}[data-phase="planned"]`);
    await docShot(phone.page, "bulk-plan", { viewportOnly: true });
    await phone.page.fill('input[name="bulk-reason"]', "processor has no such charge");
    await phone.page.click('[data-testid="bulk-apply"]');
    await phone.page.waitForSelector('[data-testid="bulk-apply-totals"]');
    await docShot(phone.page, "bulk-plan-applied", { viewportOnly: true });
    expect(await rowOf(pool, more)).toBeNull();
    await phone.context.close();
  });

  it("a tool nobody can be asked about: its record opens on the forced release, and the next stuck claim after it is in the Stuck filter it came from", async () => {
    const olderCharge = await insertStuckClaim(pool, { tenant: FORCE_TENANT, label: "charge", minutesAgo: 60 });
    const first = await insertStuckClaim(pool, {
      tenant: FORCE_TENANT,
      label: "email-1",
      minutesAgo: 50,
      tool: "send_receipt_email",
    });
    const second = await insertStuckClaim(pool, {
      tenant: FORCE_TENANT,
      label: "email-2",
      minutesAgo: 40,
      tool: "send_receipt_email",
    });
    const { context, page } = await signedIn(FORCE_ADMIN);
    await page.goto(`${baseUrl}/stuck?tool=send_receipt_email`);
    await page.waitForSelector('[data-testid="stuck-table"]');
    expect(await listedKeys(page)).toEqual([first, second]);
    const force = page.locator(`tr[data-key="${first}"] [data-testid="force-release-link"]`);
    expect(await force.getAttribute("href")).toBe(`/records/${first}?stuckTool=send_receipt_email#resolve`);
    expect(await page.getAttribute(`tr[data-key="${first}"] [data-column="ref"] a`, "href")).toBe(
      `/records/${first}?stuckTool=send_receipt_email`,
    );

    await force.click();
    await page.waitForSelector('[data-testid="force-release"]');
    expect(await page.getByRole("region", { name: "Resolve (no processor to ask)" }).count()).toBe(1);
    expect(await page.textContent('[data-testid="resolve-panel"]')).toContain(
      "With no processor to ask, completing or releasing would be a guess: see above.",
    );
    expect(await seriousViolations(page), "the record page, nobody to ask").toEqual([]);
    await page.fill('textarea[name="reason"]', "mail service log: no message sent for this charge");
    await page.fill('input[aria-label="Type force release to confirm"]', "force release");
    await page.click('button:has-text("Force release")');
    await page.waitForURL(/\?resolved=\d+&stuckTool=send_receipt_email$/);
    const confirmation = '[data-testid="resolve-confirmation"]';
    await page.waitForSelector(`${confirmation}[data-action="release"]`);
    expect(await page.textContent(confirmation)).toContain(`Force-released claim ${first.slice(0, 12)}`);
    // Oldest in the filter, not the older charge outside it.
    const next = page.locator('[data-testid="next-stuck-link"]');
    expect(await next.textContent()).toContain("Next stuck claim (tool send_receipt_email)");
    expect(await next.getAttribute("href")).toBe(`/records/${second}?stuckTool=send_receipt_email`);
    expect(await rowOf(pool, first)).toBeNull();
    expect((await auditOf(pool, first)).map((a) => a.action)).toEqual(["record.force_release"]);
    expect(await rowOf(pool, olderCharge)).toMatchObject({ status: "in_progress" });

    // Followed, the next record opens on its forced release too, the filter still carried.
    await next.click();
    await page.waitForURL(new RegExp(`/records/${second}\\?stuckTool=send_receipt_email$`));
    await page.waitForSelector('[data-testid="force-release"]');
    await context.close();

    // At 390 px: the rows say it in one line each, and the record page is axe-clean.
    const phone = await signedIn(FORCE_ADMIN, PHONE);
    await phone.page.goto(`${baseUrl}/stuck?tool=send_receipt_email`);
    await phone.page.waitForSelector(`tr[data-key="${second}"] [data-testid="nobody-to-ask"]`);
    expect(await seriousViolations(phone.page), "the stuck page at 390 px, nobody to ask").toEqual([]);
    await phone.page.goto(`${baseUrl}/records/${second}`);
    await phone.page.waitForSelector('[data-testid="force-release"]');
    expect(await seriousViolations(phone.page), "the record page at 390 px, nobody to ask").toEqual([]);
    await phone.context.close();
  });

  it("a link with a filter the list cannot read shows why beside the filter bar, the refused field marked, and a change there drops it", async () => {
    const { context, page } = await signedIn(FORCE_ADMIN, PHONE);
    await page.goto(`${baseUrl}/stuck?tool=send_receipt_email&order=sideways&limit=7`);
    await page.waitForSelector('[data-testid="stuck-query-problems"]');
    const bar = 'form[aria-label="Filter stuck claims"]';
    expect(await page.inputValue(`${bar} select[name="tool"]`)).toBe("send_receipt_email");
    const order = page.locator('[data-testid="stuck-order"]');
    expect(await order.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator(`#${await order.getAttribute("aria-describedby")}`).textContent()).toMatch(/^order/);
    expect(await page.locator(`${bar} select[name="tool"]`).getAttribute("aria-invalid")).toBeNull();
    expect(await seriousViolations(page), "the refused stuck filter at 390 px").toEqual([]);

    await order.selectOption("newest");
    await page.waitForSelector('[data-testid="stuck-summary"]');
    const url = new URL(page.url());
    expect([url.searchParams.get("tool"), url.searchParams.get("order"), url.searchParams.get("limit")]).toEqual([
      "send_receipt_email",
      "newest",
      null,
    ]);
    await context.close();
  });

  it("the list rendered again (a resolve, an auto-refresh) keeps another row's answer and its typed reason", async () => {
    const kept = await insertStuckClaim(pool, { tenant: FORCE_TENANT, label: "kept", minutesAgo: 30 });
    const released = await insertStuckClaim(pool, { tenant: FORCE_TENANT, label: "released", minutesAgo: 29 });
    const { context, page } = await signedIn(FORCE_ADMIN);
    await page.goto(`${baseUrl}/stuck?tool=charge_card`);
    const row = (key: string) => `tr[data-key="${key}"]`;
    for (const key of [kept, released]) {
      await page.click(`${row(key)} [data-testid="row-ask"]`);
      await page.waitForSelector(`${row(key)} [data-testid="row-answer"][data-outcome="not_taken"]`);
    }
    await page.fill(`${row(kept)} [data-testid="row-reason"]`, "typed before the list was rendered again");
    await page.fill(`${row(released)} [data-testid="row-reason"]`, "processor has no such charge");
    await page.click(`${row(released)} [data-testid="row-release"]`);
    await page.waitForSelector('[data-testid="resolve-confirmation"]');
    await expect.poll(() => page.locator(row(released)).count()).toBe(0);
    expect(await page.getAttribute(`${row(kept)} [data-testid="row-answer"]`, "data-outcome")).toBe("not_taken");
    expect(await page.inputValue(`${row(kept)} [data-testid="row-reason"]`)).toBe(
      "typed before the list was rendered again",
    );
    await context.close();
  });
});
