import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { NAV_ITEMS } from "@/components/shell/nav-items";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { DEMO_USERS } from "@/tools/demo/demo-users";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";

const baseUrl = inject("baseUrl");

async function signIn(page: Page, email: string, password: string, path = "/") {
  await page.goto(`${baseUrl}${path}`);
  await page.waitForURL(/\/sign-in\?callbackUrl=/);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await page.click('button[type="submit"]');
}

describe.skipIf(browserMissing)("sign-in and the shell, in Chromium", () => {
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  beforeAll(async () => {
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(() => browser?.close());

  it.each(DEMO_USERS.map((u) => [u.email, u] as const))(
    "%s signs in, sees the shell and every page, and signs out",
    async (_email, user) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await signIn(page, user.email, DEMO_PASSWORD, "/records");
      await page.waitForURL(`${baseUrl}/records`);

      await expect.poll(() => page.textContent('[data-testid="user-role"]')).toBe(user.role);
      expect(await page.textContent('[data-testid="user-name"]')).toBe(user.name);
      const navLabels = await page.locator('nav[aria-label="Main"] a').allTextContents();
      expect(navLabels).toEqual(NAV_ITEMS.map((i) => i.label));

      for (const item of NAV_ITEMS) {
        await page.click(`nav[aria-label="Main"] a[href="${item.href}"]`);
        await page.waitForURL(`${baseUrl}${item.href}`);
        await expect.poll(() => page.textContent("main h1")).toBe("heading" in item ? item.heading : item.label);
        expect(await page.getAttribute(`nav[aria-label="Main"] a[href="${item.href}"]`, "aria-current")).toBe("page");
      }
      await page.goto(`${baseUrl}/`);
      await page.waitForSelector("main dl");
      await screenshot(page, `shell-${user.role}-${user.email.split("@")[0]}`);

      const me = await page.evaluate(() => fetch("/api/v1/me").then((r) => r.json()));
      expect(me).toEqual({ kind: "user", name: user.email, role: user.role, tenants: user.tenants });

      // Intended: the signed-out probe of /api/v1/me below answers 401, which Chromium logs.
      pageErrors.allow(/status of 401 .*\/api\/v1\/me\)$/);
      await page.click("text=Sign out");
      await page.waitForURL(/\/sign-in/);
      await page.goto(`${baseUrl}/records`);
      await page.waitForURL(/\/sign-in\?callbackUrl=%2Frecords/);
      expect(await page.evaluate(() => fetch("/api/v1/me").then((r) => r.status))).toBe(401);
      await context.close();
    },
  );

  it("a wrong password gets a clear message in place, keeps the e-mail, and the right one then signs in", async () => {
    // Intended: next-auth's credentials callback answers a wrong password 401, and so does the
    // /api/v1/me probe without a session; Chromium logs both as failed loads.
    pageErrors.allow(/status of 401 .*\/api\/(auth\/callback\/demo|v1\/me)\)$/);
    const page = await browser.newPage();
    await signIn(page, "admin@demo.test", "not-the-password", "/records");
    await page.waitForSelector('[data-testid="sign-in-error"]');
    expect(await page.textContent('[data-testid="sign-in-error"]')).toBe("Wrong email or password.");
    expect(await page.inputValue('input[name="email"]')).toBe("admin@demo.test");
    expect(await page.inputValue('input[name="password"]')).toBe("");
    expect(page.url()).toBe(`${baseUrl}/sign-in?callbackUrl=%2Frecords`); // no reload, no password in it
    await screenshot(page, "sign-in-wrong-password");
    expect(await page.evaluate(() => fetch("/api/v1/me").then((r) => r.status))).toBe(401);

    await page.fill('input[name="password"]', DEMO_PASSWORD);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${baseUrl}/records`);
    await expect.poll(() => page.textContent('[data-testid="user-role"]')).toBe("admin");
    await page.close();
  });

  it("the tab icon answers without a session, as /icon.svg and /favicon.ico", async () => {
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/sign-in`);
    const icons = await page.evaluate(async () =>
      Promise.all(
        ["/icon.svg", "/favicon.ico"].map(async (path) => {
          const response = await fetch(path, { credentials: "omit", redirect: "manual" });
          return `${path} ${response.status} ${response.headers.get("content-type")}`;
        }),
      ),
    );
    expect(icons).toEqual(["/icon.svg 200 image/svg+xml", "/favicon.ico 200 image/x-icon"]);
    expect(await page.getAttribute('link[rel="icon"][type="image/svg+xml"]', "href")).toMatch(/^\/icon\.svg/);
    await page.close();
  });

  it("'/' focuses the header lookup box, and Enter takes the text to the lookup page", async () => {
    const page = await browser.newPage();
    await signIn(page, "viewer@demo.test", DEMO_PASSWORD);
    await page.waitForURL(`${baseUrl}/`);
    await page.waitForSelector('#header-lookup[data-shortcut-ready="true"]'); // hydrated: the shortcut listens
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("header-lookup");
    await page.keyboard.type("already in progress (ref 3f9a1c2b7d4e)");
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/lookup\?q=already/);
    await page.close();
  });
});
