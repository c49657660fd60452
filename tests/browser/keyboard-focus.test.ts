import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { focusIsWithin, focusedElement, tabUntil, type FocusedElement } from "../helpers/keyboard-focus";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { signInAs } from "../helpers/sign-in";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `kbd-${run}`;
const key = (label: string) => createHash("sha256").update(`keyboard-focus|${run}|${label}`).digest("hex");
/** WCAG 1.4.11: a focus indicator is a non-text element and needs 3:1 against what lies behind it. */
const RING_CONTRAST = 3;
const TABS_PER_PAGE = 150;

// A keyboard user must always see where focus is, get past the navigation in one key, and land
// on an action's result instead of on <body>.
describe.skipIf(browserMissing)("keyboard focus: visible rings, the skip link, focus after an action", () => {
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });

  beforeAll(async () => {
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES
       ($1, $3, 'cust', 'charge_card', 'completed', '{"charge_id": "ch_1", "to": "a@b.example"}', now() - interval '3 minutes', now() - interval '3 minutes'),
       ($2, $3, 'cust', 'charge_card', 'in_progress', NULL, now() - interval '40 minutes', NULL)`,
      [key("completed"), key("stuck"), TENANT],
    );
    // A history entry on the stuck record: its "Before, after and evidence" is a <summary> to focus.
    await pool.query(
      `INSERT INTO audit_log (actor, actor_role, action, key, tenant, reason, before) VALUES ('operator@demo.test', 'operator', 'record.check', $1, $2, 'keyboard fixture', '{"status": "in_progress"}')`,
      [key("stuck"), TENANT],
    );
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  async function signedIn(email: string, path = "/"): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await signInAs(page, email, path);
    return page;
  }

  /** Tabs through the whole page from its top; every element focus lands on, with its ring. */
  async function tabThrough(page: Page, path: string): Promise<(FocusedElement & { page: string })[]> {
    await page.goto(`${baseUrl}${path}`);
    await page.waitForLoadState("networkidle");
    const seen: (FocusedElement & { page: string })[] = [];
    const first = new Set<string>(); // each element once
    for (let i = 0; i < TABS_PER_PAGE; i++) {
      await page.keyboard.press("Tab");
      const focused = await focusedElement(page);
      if (!focused) continue;
      if (seen.length > 3 && seen[0]?.describe === focused.describe) break; // wrapped round to the top
      if (first.has(focused.describe)) continue; // a date field's parts, one Tab each
      first.add(focused.describe);
      seen.push({ ...focused, page: path });
    }
    return seen;
  }

  it("every control focus lands on, on every kind of page, shows a ring of at least 3:1", async () => {
    const anonymous = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const focused = await tabThrough(anonymous, "/sign-in");
    const admin = await signedIn("admin@demo.test");
    for (const path of [
      `/records?tenant=${TENANT}`,
      "/stuck",
      `/records/${key("stuck")}`,
      "/tools",
      `/keys?tenant=${TENANT}&subject=cust&tool=charge_card&args=${encodeURIComponent("{}")}`,
      "/lookup?q=000000abcdef",
      "/metrics?window=1h",
      "/audit",
    ])
      focused.push(...(await tabThrough(admin, path)));
    const faint = focused
      .filter((f) => f.ringContrast < RING_CONTRAST)
      .map((f) => `${f.page}: ${f.describe} — ring by ${f.ringBy}, ${f.ringContrast}:1`);
    expect(faint, `focused without a visible ring:\n${faint.join("\n")}`).toEqual([]);
    // The sweep reached every kind of control the console has, so "no faint ring" means something.
    const kinds = new Set(focused.map((f) => f.tag));
    for (const tag of ["a", "button", "input", "select", "textarea", "summary"]) expect(kinds).toContain(tag);
  }, 300_000);

  it("the first Tab lands on 'Skip to content', visible; Enter moves focus into main, and the next Tab stays there", async () => {
    const page = await signedIn("viewer@demo.test", "/records");
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${baseUrl}/records`);
      await page.waitForLoadState("networkidle");
      await page.keyboard.press("Tab");
      const skip = await focusedElement(page);
      expect(skip, `at ${width} px`).toMatchObject({
        tag: "a",
        text: "Skip to content",
        href: "#content",
        visible: true,
      });
      expect(skip?.ringContrast).toBeGreaterThanOrEqual(RING_CONTRAST);
      await screenshot(page, `skip-link-focused-${width}`);
      await page.keyboard.press("Enter");
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("content");
      await page.keyboard.press("Tab");
      expect(await focusIsWithin(page, "main#content"), "the Tab after the skip link is in main").toBe(true);
      await screenshot(page, `focus-after-skip-${width}`);
    }
  });

  it("after 'Ask the processor' and a reveal, focus is on the result, in a polite live region", async () => {
    const page = await signedIn("operator@demo.test", `/records/${key("stuck")}`);
    await page.waitForSelector('button:has-text("Ask the processor"):not([disabled])');
    await page.focus('button:has-text("Ask the processor")');
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="processor-outcome"]');
    await expect.poll(() => focusIsWithin(page, '[role="status"][aria-live="polite"]')).toBe(true);
    expect(await focusIsWithin(page, '[role="status"]:has([data-testid="processor-outcome"])')).toBe(true);

    await page.goto(`${baseUrl}/records/${key("completed")}`);
    await page.waitForSelector('[data-testid="reveal-open"]:not([disabled])');
    await page.focus('[data-testid="reveal-open"]');
    await page.keyboard.press("Enter");
    // The reason field takes focus when the form opens: the button that opened it is gone.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("reveal-reason");
    await page.keyboard.type(`keyboard focus ${run}: check the reveal lands on its result`);
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="revealed-response"]');
    await expect
      .poll(() => focusIsWithin(page, '[role="status"][aria-live="polite"]:has([data-testid="revealed-response"])'))
      .toBe(true);
  });

  it("a lookup and a key explanation land focus on their result", async () => {
    const page = await signedIn("viewer@demo.test", "/lookup");
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("lookup-text");
    await page.keyboard.type(`ref ${key("nothing").slice(0, 12)}`);
    await page.keyboard.press("Control+Enter");
    await page.waitForURL(/\/lookup\?q=/);
    await expect.poll(() => focusIsWithin(page, '[role="status"][aria-label="lookup result"]')).toBe(true);

    await page.goto(`${baseUrl}/keys`);
    await page.focus("#tenant");
    await page.keyboard.type(TENANT);
    await page.focus("#tool");
    await page.keyboard.type("charge_card");
    await page.focus("#args");
    await page.keyboard.type('{"amount_cents": 100}');
    await page.keyboard.press("Tab");
    await tabUntil(page, (f) => f.tag === "button" && /explain/i.test(f.text), "the Explain button");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/keys\?/);
    await expect.poll(() => focusIsWithin(page, '[role="status"][aria-label="key explanation"]')).toBe(true);
  });
});
