import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { browserMissing, launchChromium } from "../helpers/browser";
import { focusIsWithin, focusedElement, tabUntil } from "../helpers/keyboard-focus";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `kjob-${run}`;
const STUCK_KEY = createHash("sha256").update(`keyboard-jobs|${run}|stuck`).digest("hex");
const SERVER = `kjob-${run}`;
const TOOL = `set_profile_${run}`;

// Two of the console's three jobs done with the keyboard alone (page.keyboard, never click()):
// support looks up a ref, an admin reviews a tool's annotation. Focus is checked at each step.
describe.skipIf(browserMissing)("keyboard-only jobs: support lookup, admin tools review", () => {
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });

  beforeAll(async () => {
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at) VALUES ($1, $2, 'user_1', 'charge_card', 'in_progress', now() - interval '40 minutes')`,
      [STUCK_KEY, TENANT],
    );
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  /** Opens `path`, is sent to sign-in, and signs in with Tab, typing and Enter only. */
  async function signInByKeyboard(email: string, path: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${baseUrl}${path}`);
    await page.waitForURL(/\/sign-in\?callbackUrl=/);
    await page.waitForSelector('button[type="submit"]:not([disabled])'); // hydrated
    await tabUntil(page, (f) => f.tag === "input" && f.describe.includes("[email]"), "the e-mail field");
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    expect((await focusedElement(page))?.describe).toContain("[password]");
    await page.keyboard.type(DEMO_PASSWORD);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
    await page.waitForLoadState("networkidle");
    return page;
  }

  it("support: signs in, pastes a ref into the header lookup, lands on the record, reads its state and asks the processor", async () => {
    const page = await signInByKeyboard("viewer@demo.test", "/");
    await page.waitForSelector('#header-lookup[data-shortcut-ready="true"]');
    // From the top: the skip link first, then on through the navigation to the header's box.
    await page.keyboard.press("Tab");
    expect(await focusedElement(page)).toMatchObject({ text: "Skip to content" });
    await tabUntil(page, (f) => f.describe.startsWith("input#header-lookup"), "the header lookup", 20);
    await page.keyboard.insertText(`The charge is already in progress (ref ${STUCK_KEY.slice(0, 12)}).`);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${baseUrl}/records/${STUCK_KEY}`);
    expect(await page.textContent('[data-testid="record-status"]')).toBe("in_progress · stuck");

    // The record's one read-only action, by keyboard: the answer takes focus.
    const ask = await tabUntil(page, (f) => f.tag === "button" && f.text === "Ask the processor", "Ask the processor");
    expect(ask.ringContrast).toBeGreaterThanOrEqual(3);
    await page.keyboard.press("Enter");
    await page.waitForSelector('[data-testid="processor-outcome"]');
    await expect.poll(() => focusIsWithin(page, '[role="status"]:has([data-testid="processor-outcome"])')).toBe(true);
    expect(await page.getAttribute('[data-testid="processor-outcome"]', "data-outcome")).toMatch(
      /^(taken|not_taken|unknown)$/,
    );
  });

  it("admin: signs in, reaches /tools through the navigation, reviews a tool's annotation and lands on the result", async () => {
    const page = await signInByKeyboard("admin@demo.test", "/");
    // The listing to review: a server's tool that claims idempotentHint with no key behind it.
    const uploaded = await page.evaluate(
      ([server, tool]) =>
        fetch(`/api/v1/tools/upload?server=${server}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ tools: [{ name: tool, annotations: { idempotentHint: true } }] }),
        }).then((r) => r.status),
      [SERVER, TOOL],
    );
    expect(uploaded).toBe(201);

    await page.keyboard.press("Tab");
    expect(await focusedElement(page)).toMatchObject({ text: "Skip to content" });
    await tabUntil(page, (f) => f.tag === "a" && f.href === "/tools", "the Tools link", 20);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${baseUrl}/tools`);
    await page.waitForSelector(`text=${TOOL}`);

    const rowHasTool = (tool: string) =>
      page.evaluate((t) => document.activeElement?.closest("tr")?.textContent?.includes(t) ?? false, tool);
    let found = false;
    for (let i = 0; i < 400 && !found; i++) {
      await page.keyboard.press("Tab");
      const focused = await focusedElement(page);
      found = focused?.text === "Review: naturally idempotent…" && (await rowHasTool(TOOL));
    }
    expect(found, `the review button of ${TOOL} is reachable by Tab`).toBe(true);
    await page.keyboard.press("Enter");
    // The form replaces the button: its reason field takes focus.
    await expect.poll(async () => (await focusedElement(page))?.describe ?? "<body>").toContain("textarea");
    await page.keyboard.type(`keyboard job ${run}: it sets the profile, a repeat changes nothing`);
    await page.keyboard.press("Tab");
    expect(await focusedElement(page)).toMatchObject({ tag: "button", text: "Record review" });
    await page.keyboard.press("Enter");
    // Focus lands on this tool's result, read in one evaluation: the refresh that follows re-renders the row.
    await expect
      .poll(() =>
        page.evaluate((t) => {
          const focused = document.activeElement;
          const region = focused?.closest('[role="status"][aria-label="review result"]');
          return Boolean(
            region?.textContent?.includes("Review recorded") && focused?.closest("tr")?.textContent?.includes(t),
          );
        }, TOOL),
      )
      .toBe(true);
    // The page refreshed with the review: the tool's verdict names who reviewed it and why.
    await expect
      .poll(() =>
        page.evaluate(
          (t) =>
            [...document.querySelectorAll("tr")]
              .find((row) => row.textContent?.includes(t))
              ?.querySelector('[data-testid="verdict-explanation"]')?.textContent ?? "",
          TOOL,
        ),
      )
      .toContain("reviewed by admin@demo.test");
  });
});
