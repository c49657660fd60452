import { copyFileSync, mkdirSync } from "node:fs";
import { createHash, randomBytes } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { saveUser } from "@/lib/auth/users";
import { writeAudit } from "@/lib/audit/write-audit";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { signInAs } from "../helpers/sign-in";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { controlsShortOfTheirWords } from "../helpers/clipped-controls";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `phone-${run}`;
const OPERATOR = `${TENANT}-operator@demo.test`;
const hash = (label: string) => createHash("sha256").update(`phone|${run}|${label}`).digest("hex");
/** Two keys under one ref: the lookup page lists both instead of going straight to a record. */
const SHARED_REF = hash("shared").slice(0, 12);
const key = (label: string) => (label.startsWith("shared") ? `${SHARED_REF}${hash(label).slice(12)}` : hash(label));
const STUCK = key("stuck");
/** A ref nobody wrote: the lookup's "never seen". */
const UNSEEN_REF = hash("nowhere").slice(0, 12);
const PHONES = [
  { width: 360, height: 740 },
  { width: 390, height: 844 },
];
const SETUP: Actor = {
  kind: "system",
  id: "test",
  name: "phone-layout-test",
  displayName: "phone layout test",
  role: "admin",
  tenants: [],
};

/** Every page a signed-in person reaches, in a state with something on it. */
/**
 * Pages whose phone screenshot another test takes with richer data (overview-table-bounds, records-demo-facets,
 * metrics, duplicates, tools): one writer per file, so the picture in docs/ does not depend on the order the files ran in.
 */
const SHOT_ELSEWHERE = new Set(["overview", "records", "metrics", "duplicates", "tools"]);

const CONSOLE_PAGES = [
  { name: "overview", path: "/" },
  { name: "records", path: "/records" },
  { name: "record", path: `/records/${STUCK}` },
  { name: "stuck", path: "/stuck" },
  { name: "lookup", path: `/lookup?q=${encodeURIComponent(`Do not submit it again (ref ${SHARED_REF}).`)}` },
  { name: "lookup-unseen", path: `/lookup?q=${encodeURIComponent(`Do not submit it again (ref ${UNSEEN_REF}).`)}` },
  {
    name: "keys",
    path: `/keys?tenant=${TENANT}&subject=user_1&tool=charge_card&args=${encodeURIComponent('{"amount_cents": 2400, "card": "c_4242"}')}&compare=${encodeURIComponent('{"card": "c_4242", "amount_cents": 2400}')}`,
  },
  { name: "metrics", path: "/metrics" },
  { name: "duplicates", path: "/duplicates" },
  { name: "tools", path: "/tools" },
  { name: "audit", path: "/audit" },
  { name: "forbidden", path: "/forbidden?action=users:manage" },
  { name: "not-found", path: "/no-such-page-here" },
];

type Layout = {
  documentWidth: number;
  viewportWidth: number;
  /** The outermost elements that stick out past the viewport's right edge, to name in a failure. */
  sticking: string[];
  searchWidth: number | null;
  signOut: { left: number; right: number } | null;
  menuButton: { visible: boolean; width: number; height: number } | null;
  /** Per records row: cells not wholly visible (cut by the viewport or by a scroll box). */
  hiddenCells: { key: string; cells: string[] }[];
  recordRef: { left: number; right: number } | null;
  /** JSON blocks whose text runs past their own box (hidden until scrolled). */
  cutJson: string[];
  /** Card cells whose column label (the ::before of data-label) runs past its own column into the value. */
  overlappingLabels: string[];
  /** Card tables wider inside than their box: a row's content hidden behind a sideways scroll. */
  scrollingCards: string[];
};

/** Measured in the page: what sticks out, and whether the controls a person needs are whole. */
function measureLayout(): Layout {
  const viewportWidth = window.innerWidth;
  const clippers = (el: Element) => {
    const boxes: DOMRect[] = [];
    for (let parent = el.parentElement; parent; parent = parent.parentElement)
      if (getComputedStyle(parent).overflowX !== "visible") boxes.push(parent.getBoundingClientRect());
    return boxes;
  };
  const wholeInView = (el: Element) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || !el.checkVisibility()) return false;
    if (r.left < -0.5 || r.right > viewportWidth + 0.5) return false;
    return clippers(el).every((box) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5);
  };
  const sticking: string[] = [];
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    // Its box, or text running out of its box (a long unbroken word), past the right edge.
    const inkRight = getComputedStyle(el).overflowX === "visible" ? r.left + el.scrollWidth : r.right;
    if (Math.max(r.right, inkRight) <= viewportWidth + 0.5 || r.width === 0) continue;
    const parent = el.parentElement;
    if (parent && parent.getBoundingClientRect().right > viewportWidth + 0.5 && parent !== document.body) continue;
    sticking.push(
      `<${el.tagName.toLowerCase()} class="${el.getAttribute("class") ?? ""}"> right ${Math.round(r.right)}`,
    );
  }
  const rect = (el: Element | null) => {
    if (!el) return null;
    const r = el.getBoundingClientRect();
    return { left: r.left, right: r.right };
  };
  const search = document.querySelector<HTMLInputElement>("#header-lookup");
  const signOut = [...document.querySelectorAll("button")].find((b) => b.textContent?.trim() === "Sign out") ?? null;
  const menu = document.querySelector('[data-testid="menu-button"]');
  const menuBox = menu?.getBoundingClientRect();
  const hiddenCells = [...document.querySelectorAll('[data-testid="records-table"] tbody tr[data-key]')].map((row) => ({
    key: row.getAttribute("data-key") ?? "",
    cells: [...row.querySelectorAll("td")]
      .filter((td) => td.textContent?.trim() && !wholeInView(td))
      .map((td) => td.getAttribute("data-column") ?? "?"),
  }));
  return {
    documentWidth: document.documentElement.scrollWidth,
    viewportWidth,
    sticking: sticking.slice(0, 8),
    searchWidth: search ? search.getBoundingClientRect().width : null,
    signOut: signOut && wholeInView(signOut) ? rect(signOut) : null,
    menuButton:
      menu && menuBox ? { visible: menu.checkVisibility(), width: menuBox.width, height: menuBox.height } : null,
    hiddenCells: hiddenCells.filter((row) => row.cells.length > 0),
    cutJson: [...document.querySelectorAll<HTMLElement>('[data-testid="json-view"]')]
      .filter((pre) => pre.checkVisibility() && pre.scrollWidth > pre.clientWidth + 1)
      .map((pre) => `${pre.getAttribute("aria-label") ?? "json"}: ${pre.scrollWidth} in ${pre.clientWidth} px`),
    overlappingLabels: [...document.querySelectorAll<HTMLElement>(".data-table-cards td[data-label]")]
      .filter((td) => td.checkVisibility() && getComputedStyle(td).display !== "table-cell")
      .flatMap((td) => {
        // A pseudo-element has no box to measure: lay its text out in a box of the label column's width.
        const label = getComputedStyle(td, "::before");
        if (label.content === "none" || label.float === "none") return [];
        const probe = document.createElement("div");
        for (const property of [
          "font",
          "letterSpacing",
          "textTransform",
          "whiteSpace",
          "overflowWrap",
          "lineHeight",
        ] as const)
          probe.style[property] = label[property];
        probe.style.position = "absolute";
        probe.style.width = `${parseFloat(label.width) - parseFloat(label.paddingRight) - parseFloat(label.paddingLeft)}px`;
        probe.textContent = td.getAttribute("data-label");
        document.body.append(probe);
        const overflow = probe.scrollWidth - probe.clientWidth;
        probe.remove();
        return overflow > 1 ? [`"${td.getAttribute("data-label")}" runs ${overflow} px into its value`] : [];
      }),
    scrollingCards: [...document.querySelectorAll<HTMLElement>(".data-table-cards")]
      .filter(
        (box) =>
          box.checkVisibility() &&
          box.querySelector("td") &&
          getComputedStyle(box.querySelector("td")!).display !== "table-cell",
      )
      .filter((box) => box.scrollWidth > box.clientWidth + 1)
      .map(
        (box) =>
          `${box.querySelector("table")?.getAttribute("data-testid") ?? "table"}: ${box.scrollWidth} in ${box.clientWidth} px`,
      ),
    recordRef: (() => {
      const ref = document.querySelector('[data-testid="record-ref"]');
      return ref && wholeInView(ref) ? rect(ref) : null;
    })(),
  };
}

async function expectFits(page: Page, where: string, options: { shell: boolean }) {
  const layout = await page.evaluate(measureLayout);
  expect(
    layout.documentWidth,
    `${where}: the document is ${layout.documentWidth} px wide in a ${layout.viewportWidth} px viewport; sticking out:\n${layout.sticking.join("\n")}`,
  ).toBeLessThanOrEqual(layout.viewportWidth);
  expect(layout.cutJson, `${where}: JSON cut off at its box's edge`).toEqual([]);
  expect(layout.overlappingLabels, `${where}: card labels over their values`).toEqual([]);
  expect(layout.scrollingCards, `${where}: cards cut off at their box's edge`).toEqual([]);
  if (!options.shell) return layout;
  expect(layout.searchWidth, `${where}: the header search box`).toBeGreaterThanOrEqual(
    layout.viewportWidth >= 390 ? 200 : 180,
  );
  expect(layout.signOut, `${where}: Sign out is not wholly inside the viewport`).not.toBeNull();
  expect(layout.menuButton, `${where}: the Menu button`).toMatchObject({ visible: true });
  expect(layout.menuButton!.height, `${where}: the Menu button is a finger's target`).toBeGreaterThanOrEqual(32);
  return layout;
}

describe.skipIf(browserMissing)("the console on a phone (360 and 390 px wide), in Chromium", () => {
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  let db: Db;

  beforeAll(async () => {
    db = createPrismaClient(inject("databaseUrl"), 1);
    const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
    const receipt = (label: string) => ({
      id: `ch_${run}_${label}`,
      status: "succeeded",
      amount_cents: 2400,
      card: "c_4242",
      reference: key(label),
      // A long unbroken value: the JSON view must wrap it, not widen the page.
      receipt_url: `https://pay.example.test/receipts/${key(label)}${hash(`${label}-2`)}`,
    });
    const rows = [
      { label: "stuck", tool: "charge_card", subject: "user_1", status: "in_progress", minutes: 70 },
      { label: "shared-a", tool: "charge_card", subject: "user_2", status: "completed", minutes: 50 },
      { label: "shared-b", tool: "refund_charge", subject: "user_2", status: "completed", minutes: 40 },
      {
        label: "shipment",
        tool: "create_shipment",
        subject: "user_with_a_rather_long_subject_name_42",
        status: "in_progress",
        minutes: 1,
      },
      { label: "email", tool: "send_receipt_email", subject: null, status: "completed", minutes: 20 },
      { label: "failed", tool: "charge_card", subject: "user_3", status: "failed", minutes: 10 },
    ];
    await db.idempotency.createMany({
      data: rows.map((row) => ({
        key: key(row.label),
        tenant: TENANT,
        subject: row.subject,
        tool: row.tool,
        status: row.status,
        response: row.status === "completed" ? receipt(row.label) : undefined,
        createdAt: ago(row.minutes),
        updatedAt: row.status === "completed" ? ago(row.minutes - 1) : null,
      })),
    });
    await writeAudit(
      db,
      { ...SETUP, id: "reconciler", name: "reconciler", displayName: "Reconciler" },
      {
        action: "record.complete",
        key: key("email"),
        tenant: TENANT,
        reason: "reconciler: the processor says the operation happened (status succeeded)",
        before: { key: key("email"), status: "in_progress", response: null },
        after: { key: key("email"), status: "completed", response: receipt("email") },
        evidence: { outcome: "taken", receipt: receipt("email"), evidence: { adapter: "http", status: 200 } },
      },
    );
    // An operator limited to this file's tenant: every list shows this file's rows, whatever else the run wrote.
    await saveUser(db, SETUP, { email: OPERATOR, role: "operator", tenants: [TENANT], password: DEMO_PASSWORD });
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await db?.$disconnect();
  });

  async function phonePage(viewport: { width: number; height: number }, signedIn = true): Promise<Page> {
    const page = await (await browser.newContext({ viewport })).newPage();
    if (signedIn) {
      await page.goto(`${baseUrl}/`);
      await page.waitForURL(/\/sign-in\?callbackUrl=/);
      await page.fill('input[name="email"]', OPERATOR);
      await page.fill('input[name="password"]', DEMO_PASSWORD);
      await page.click('button[type="submit"]');
      await page.waitForURL(`${baseUrl}/`);
    }
    return page;
  }

  /** Makes the demo world's processor hold a charge under STUCK (the call "was taken"), so asking shows a receipt. */
  let charged = false;
  async function askTheProcessor(page: Page) {
    if (!charged) {
      const detail = (await page.evaluate((k) => fetch(`/api/v1/records/${k}`).then((r) => r.json()), STUCK)) as {
        processor: string | null;
      };
      const processorUrl = /^GET (http\S+)\/references\/\{key\}$/.exec(detail.processor ?? "")?.[1];
      expect(processorUrl, "the browser project's console is expected to run the demo processor").toBeDefined();
      const response = await fetch(`${processorUrl}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_4242", amount_cents: 2_400, reference: STUCK }),
      });
      expect(response.status).toBe(200);
      charged = true;
    }
    await page.click('button:has-text("Ask the processor")');
    await page.waitForSelector('[data-testid="processor-outcome"][data-outcome="taken"]');
    await page.locator('[data-testid="processor-outcome"] summary').click();
  }

  /** Asks the processor from STUCK's row of the Stuck page (the charge is already held: the record page asked first). */
  async function askOnStuckRow(page: Page) {
    const row = `tr[data-key="${STUCK}"]`;
    await page.click(`${row} [data-testid="row-ask"]`);
    await page.waitForSelector(`${row} [data-testid="row-answer"][data-outcome="taken"]`);
  }

  async function visit(page: Page, path: string) {
    const response = await page.goto(`${baseUrl}${path}`);
    await page.waitForLoadState("networkidle");
    return response?.status();
  }

  /** At 390 × 844 the fit pass is also the screenshot pass (docs/screenshots/mobile): each page loaded once. */
  const SCREENSHOT_PHONE = 390;
  async function phoneShot(page: Page, name: string) {
    if (page.viewportSize()?.width !== SCREENSHOT_PHONE) return;
    // Looked at, not kept: another file writes these pages' pictures into docs/.
    if (SHOT_ELSEWHERE.has(name)) await screenshot(page, `mobile-${name}-phone-layout`);
    else copyFileSync(await screenshot(page, `mobile-${name}`), `docs/screenshots/mobile/${name}.png`);
  }

  /** One-line controls whose padding leaves less than a line of text: their words would be cut at the bottom. */
  for (const viewport of PHONES) {
    it(`at ${viewport.width} px every page fits: nothing wider than the screen, search, Sign out and every records cell whole${viewport.width === SCREENSHOT_PHONE ? " (screenshots: docs/screenshots/mobile)" : ""}`, async () => {
      mkdirSync("docs/screenshots/mobile", { recursive: true });
      const page = await phonePage(viewport);
      for (const { name, path } of CONSOLE_PAGES) {
        if (name === "not-found") pageErrors.allow(/status of 404/);
        const status = await visit(page, path);
        expect(status, name).toBe(name === "not-found" ? 404 : 200);
        // Forbidden and not-found stand outside the console's frame.
        const layout = await expectFits(page, `${name} at ${viewport.width}`, {
          shell: name !== "forbidden" && name !== "not-found",
        });
        if (name === "records") {
          expect(await page.locator('[data-testid="records-table"] tbody tr[data-key]').count()).toBe(6);
          expect(layout.hiddenCells, `records at ${viewport.width}: cells cut off`).toEqual([]);
        }
        if (name === "record") expect(layout.recordRef, `the record's ref at ${viewport.width}`).not.toBeNull();
        expect(
          (await controlsShortOfTheirWords(page)).join("; "),
          `${name} at ${viewport.width}: controls too short for their words`,
        ).toBe("");
        if (name === "lookup")
          expect(await page.locator("main a[href^='/records/']").count()).toBeGreaterThanOrEqual(2);
        await phoneShot(page, name);
      }
      // The record page once the processor has answered: its evidence JSON stays inside its box.
      await visit(page, `/records/${STUCK}`);
      await askTheProcessor(page);
      await expectFits(page, `record after asking at ${viewport.width}`, { shell: true });
      await phoneShot(page, "record-asked");
      // The Stuck page once a row has asked: the processor's answer wraps inside the row's card.
      await visit(page, "/stuck");
      await askOnStuckRow(page);
      await expectFits(page, `stuck after asking at ${viewport.width}`, { shell: true });
      await phoneShot(page, "stuck-asked");

      const anonymous = await phonePage(viewport, false);
      await visit(anonymous, "/sign-in");
      await expectFits(anonymous, `sign-in at ${viewport.width}`, { shell: false });
      await phoneShot(anonymous, "sign-in");
      const submit = await anonymous.locator('button[type="submit"]').boundingBox();
      expect(submit!.x + submit!.width).toBeLessThanOrEqual(viewport.width);
    });
  }

  /** The page-relative top of the first visible match (null: none displayed) — "on the first screen" is top < 844. */
  const topOf = (page: Page, selector: string) =>
    page.evaluate((s) => {
      const el = [...document.querySelectorAll(s)].find((e) => e.checkVisibility());
      return el ? el.getBoundingClientRect().top + window.scrollY : null;
    }, selector);
  const topsOf = (page: Page, selectors: string[]) => Promise.all(selectors.map((selector) => topOf(page, selector)));
  const visible = (page: Page, selector: string) => page.locator(selector).first().isVisible();
  const focusedInside = (page: Page, id: string) =>
    page.evaluate((i) => document.getElementById(i)?.contains(document.activeElement) ?? false, id);
  /** Captions (every dd of main) whose text runs past their box: cut with "…" or hidden. */
  const cutCaptions = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("main dd")]
        .filter((dd) => dd.checkVisibility() && dd.scrollWidth > dd.clientWidth + 1)
        .map((dd) => `"${dd.textContent}": ${dd.scrollWidth} in ${dd.clientWidth} px`),
    );
  /** A first row must show more than its top edge: its first line or so inside the 844 px. */
  const FIRST_SCREEN = 844 - 40;

  it("at 390 × 844 each page's first screen holds what the person came for; at 1440 the layout stays", async () => {
    const page = await phonePage({ width: 390, height: 844 });
    const toggle = '[data-testid="records-filters-toggle"]';

    // Records: the filters fold behind "Filters (n)", so the first screen shows rows.
    await visit(page, "/records");
    expect(await topOf(page, '[data-testid="records-table"] tbody tr[data-key]')).toBeLessThan(FIRST_SCREEN);
    expect(await page.textContent(toggle)).toBe("Filters (0)");
    expect(await page.getAttribute(toggle, "aria-controls")).toBe("records-filters");
    expect([await page.getAttribute(toggle, "aria-expanded"), await visible(page, "#records-filters form")]).toEqual([
      "false",
      false,
    ]);
    // Opening moves focus into the filters; Escape folds them and hands focus back to the button.
    await page.click(toggle);
    expect([await page.getAttribute(toggle, "aria-expanded"), await visible(page, "#records-filters form")]).toEqual([
      "true",
      true,
    ]);
    expect(await focusedInside(page, "records-filters")).toBe(true);
    await screenshot(page, "first-screen-records-filters-open");
    await page.keyboard.press("Escape");
    expect([await page.getAttribute(toggle, "aria-expanded"), await visible(page, "#records-filters form")]).toEqual([
      "false",
      false,
    ]);
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe(
      "records-filters-toggle",
    );
    await visit(page, `/records?tool=charge_card&status=completed`);
    expect(await page.textContent(toggle)).toBe("Filters (2)");

    // The record: the answer, its state and the timeline come before the long JSON panels.
    await visit(page, `/records/${key("shared-a")}`);
    const [answer, summary, timeline, stored, audit] = await topsOf(page, [
      'section[aria-label="Answer for the customer"]',
      'section[aria-label="Record"]',
      'section[aria-label="Timeline"]',
      'section[aria-label="Stored response"]',
      'section[aria-label^="Audit entries"]',
    ]);
    expect(answer!).toBeLessThan(summary!);
    expect(summary!).toBeLessThan(timeline!);
    expect(timeline!).toBeLessThan(stored!);
    expect(timeline!).toBeLessThan(audit!);
    expect(await page.textContent('[data-testid="record-amount"]')).toBe("2,400 cents");
    await screenshot(page, "first-screen-record");
    // A claim still in progress: asking the processor is the next step, so it comes before the timeline.
    await visit(page, `/records/${STUCK}`);
    const [stuckSummary, ask, stuckTimeline, stuckStored] = await topsOf(page, [
      'section[aria-label="Record"]',
      'section[aria-label="Ask the processor, then resolve"]',
      'section[aria-label="Timeline"]',
      'section[aria-label="Stored response"]',
    ]);
    expect(stuckSummary!).toBeLessThan(ask!);
    expect(ask!).toBeLessThan(stuckTimeline!);
    expect(stuckTimeline!).toBeLessThan(stuckStored!);
    // And in focus order as on screen: from the record's last button, Tab reaches the processor before the repeat's panel.
    await page.focus('button:has-text("Copy key")');
    let reached = "";
    for (let i = 0; i < 10 && !reached; i++) {
      await page.keyboard.press("Tab");
      const text = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
      if (["Ask the processor", "Copy message"].includes(text)) reached = text;
    }
    expect(reached, "the first of the two that Tab reaches").toBe("Ask the processor");
    await screenshot(page, "first-screen-record-stuck");

    // Stuck: the counts by tool fold away; opened, one line a tool (a warning may take a second).
    await visit(page, "/stuck");
    expect(await topOf(page, `tr[data-key="${STUCK}"]`)).toBeLessThan(FIRST_SCREEN);
    const counts = '[data-testid="stuck-tool-counts-toggle"]';
    expect([
      await page.getAttribute(counts, "aria-expanded"),
      await visible(page, '[data-testid="stuck-tool-counts"]'),
    ]).toEqual(["false", false]);
    await page.click(counts);
    expect(await visible(page, '[data-testid="stuck-tool-counts"]')).toBe(true);
    expect(await focusedInside(page, "stuck-tool-counts-panel")).toBe(true);
    const lines = await page.locator('[data-testid="stuck-tool-counts"] a[data-tool]').evaluateAll((links) =>
      links.map((a) => ({
        tool: a.getAttribute("data-tool"),
        height: Math.round(a.getBoundingClientRect().height),
        warned: a.textContent?.includes("no processor to ask") ?? false,
      })),
    );
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line.height, `${line.tool}'s line`).toBeLessThanOrEqual(line.warned ? 60 : 40);
    await screenshot(page, "first-screen-stuck-counts-open");

    // The search box's "/" hint needs a keyboard: not on a phone.
    expect(await visible(page, '[data-testid="lookup-shortcut-hint"]')).toBe(false);
    expect(await page.getAttribute("#header-lookup", "placeholder")).not.toContain("/");

    // A ref nobody wrote: "never seen" said once, with the ref, then the possibilities.
    await visit(page, CONSOLE_PAGES.find((p) => p.name === "lookup-unseen")!.path);
    const unseen = (await page.locator("main").innerText()).match(/never seen/gi) ?? [];
    expect(unseen, "how often the lookup says never seen").toHaveLength(1);
    expect(await page.textContent('[data-testid="lookup-no-match"] h2')).toBe(`Never seen: ${UNSEEN_REF}`);
    expect(await page.locator('[data-testid="lookup-no-match"] li').count()).toBeGreaterThanOrEqual(2);

    // Overview: no caption cut short, on the phone or the desk.
    await visit(page, "/");
    expect(await cutCaptions(page), "overview captions at 390").toEqual([]);

    const desk = await signInAs(
      await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage(),
      OPERATOR,
      "/",
    );
    await desk.waitForLoadState("networkidle");
    expect(await cutCaptions(desk), "overview captions at 1440").toEqual([]);
    await screenshot(desk, "desk-overview");
    expect(await visible(desk, '[data-testid="lookup-shortcut-hint"]')).toBe(true);
    await visit(desk, "/records");
    expect([await visible(desk, toggle), await visible(desk, "#records-filters form")]).toEqual([false, true]);
    await visit(desk, "/stuck");
    expect([await visible(desk, counts), await visible(desk, '[data-testid="stuck-tool-counts"]')]).toEqual([
      false,
      true,
    ]);
    await screenshot(desk, "desk-stuck");
    // The record keeps its two columns: the timeline beside the response, under the processor.
    await visit(desk, `/records/${key("shared-a")}`);
    const [response, line] = await Promise.all(
      ['section[aria-label="Stored response"]', 'section[aria-label="Timeline"]'].map((s) =>
        desk.locator(s).boundingBox(),
      ),
    );
    expect(line!.x).toBeGreaterThanOrEqual(response!.x + response!.width);
    await screenshot(desk, "desk-record");
    await visit(desk, CONSOLE_PAGES.find((p) => p.name === "lookup-unseen")!.path);
    copyFileSync(await screenshot(desk, "desk-lookup-unseen"), "docs/screenshots/lookup-unseen.png");

    // A touch screen at desk width has no "/" to press either.
    const touch = await signInAs(
      await (await browser.newContext({ viewport: { width: 1440, height: 900 }, hasTouch: true })).newPage(),
      OPERATOR,
      "/",
    );
    expect(await touch.evaluate(() => matchMedia("(pointer: coarse)").matches)).toBe(true);
    expect(await visible(touch, '[data-testid="lookup-shortcut-hint"]')).toBe(false);
  });

  it("the Menu button opens the navigation, a link navigates and closes it, Escape closes it; Tab reaches the skip link first", async () => {
    const page = await phonePage({ width: 390, height: 844 });
    const button = page.locator('[data-testid="menu-button"]');
    const nav = page.locator('nav[aria-label="Main"]');
    expect(await button.getAttribute("aria-controls")).toBe(await nav.getAttribute("id"));
    expect([await button.getAttribute("aria-expanded"), await nav.isVisible()]).toEqual(["false", false]);

    await button.click();
    expect([await button.getAttribute("aria-expanded"), await nav.isVisible()]).toEqual(["true", true]);
    await nav.getByRole("link", { name: "Stuck" }).click();
    await page.waitForURL(`${baseUrl}/stuck`);
    await expect.poll(() => nav.isVisible()).toBe(false);
    expect(await button.getAttribute("aria-expanded")).toBe("false");

    // By keyboard: Enter opens, Tab walks into the links, Escape closes and hands focus back.
    await button.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => nav.isVisible()).toBe(true);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Overview");
    await page.keyboard.press("Escape");
    await expect.poll(() => nav.isVisible()).toBe(false);
    expect(await button.getAttribute("aria-expanded")).toBe("false");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("menu-button");

    // From md up the links are the side bar and the button is gone.
    await page.setViewportSize({ width: 1024, height: 800 });
    expect([await button.isVisible(), await nav.isVisible()]).toEqual([false, true]);

    // The skip link: the first Tab stop of a fresh page, visible when focused, and it moves focus to the page.
    await page.setViewportSize({ width: 390, height: 844 });
    await visit(page, "/records");
    await page.keyboard.press("Tab");
    const skip = page.locator('[data-testid="skip-link"]');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");
    const box = await skip.boundingBox();
    expect(box!.width).toBeGreaterThan(50);
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("content");
  });

  it("at 1440 the records table stays a table and the record page's receipt wraps inside its panel (screenshots)", async () => {
    // Desktop is unchanged: the table is a table, and a long receipt wraps inside its half of the record page.
    const desktop = await signInAs(
      await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage(),
      OPERATOR,
      "/records",
    );
    await desktop.waitForSelector('[data-testid="records-table"] thead th');
    expect(await desktop.locator('[data-testid="records-table"] thead').isVisible()).toBe(true);
    await screenshot(desktop, "desktop-records");
    await visit(desktop, `/records/${key("shared-a")}`);
    await expectFits(desktop, "a completed record at 1440", { shell: false });
    await screenshot(desktop, "desktop-record");
    await visit(desktop, `/records/${STUCK}`);
    await askTheProcessor(desktop);
    await expectFits(desktop, "the record at 1440 after asking", { shell: false });
    // The receipt's box ends inside its panel: nothing cut off at the right edge.
    const [receipt, panel] = await Promise.all([
      desktop.locator('[aria-label="processor receipt"]').boundingBox(),
      desktop.locator('[data-testid="processor-outcome"]').boundingBox(),
    ]);
    expect(receipt!.x + receipt!.width).toBeLessThanOrEqual(panel!.x + panel!.width);
    await screenshot(desktop, "desktop-record-asked");
  });
});
