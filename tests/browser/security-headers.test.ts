import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, BrowserContext, Page, Response as PageResponse } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { signInAs } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors } from "../helpers/page-errors";
import { API_SECURITY_HEADERS } from "@/lib/security/security-headers";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `csp-${run}`;
const key = (label: string) => createHash("sha256").update(`csp|${run}|${label}`).digest("hex");
const COMPLETED = key("completed");
const STUCK = key("stuck");

type Violation = { directive: string; blocked: string; sample: string; source: string; page: string };

/** Collects every CSP violation a page reports, from its first script on (before any of the app's). */
const LISTEN_FOR_VIOLATIONS = () => {
  const w = window as unknown as { __violations: unknown[] };
  w.__violations = [];
  document.addEventListener("securitypolicyviolation", (e) => {
    w.__violations.push({
      directive: e.violatedDirective,
      blocked: e.blockedURI,
      sample: e.sample,
      source: `${e.sourceFile}:${e.lineNumber}`,
      page: location.pathname + location.search,
    });
  });
};

function expectSecurityHeaders(headers: Record<string, string>, kind: "page" | "api"): void {
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["permissions-policy"]).toMatch(/camera=\(\)/);
  const csp = headers["content-security-policy"] ?? "";
  for (const directive of ["frame-ancestors 'none'", kind === "page" ? "object-src 'none'" : "default-src 'none'"])
    expect(csp).toContain(directive);
  if (kind === "api") expect(headers["cache-control"]).toMatch(/no-store/);
  if (kind === "page") {
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}' 'strict-dynamic'(;|$)/);
    expect(csp).toContain("base-uri 'self'");
    expect(csp).toContain("form-action 'self'");
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    // Rendered per request for one signed-in person: never stored by a cache.
    if (headers.location === undefined) expect(headers["cache-control"]).toMatch(/no-store/);
  }
}

describe.skipIf(browserMissing)("security headers and the Content-Security-Policy, in Chromium", () => {
  let browser: Browser;
  const violations: Violation[] = [];
  const cspConsole: string[] = [];

  beforeAll(async () => {
    const client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES
         ($1, $3, 'cust', 'charge_card', 'completed', '{"charge_id": "ch_1", "card": {"last4": "4242"}}', now() - interval '3 minutes', now() - interval '3 minutes'),
         ($2, $3, 'cust', 'charge_card', 'in_progress', null, now() - interval '2 hours', null)`,
        [COMPLETED, STUCK, TENANT],
      );
    } finally {
      await client.end();
    }
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  async function watchedContext(): Promise<BrowserContext> {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    await context.addInitScript(LISTEN_FOR_VIOLATIONS);
    context.on("console", (message) => {
      if (/content security policy|refused to/i.test(message.text()))
        cspConsole.push(`${message.type()}: ${message.text()}`);
    });
    return context;
  }

  /** Opens `path`, checks its headers and that every script carries the header's nonce, then gathers its violations. */
  async function visit(page: Page, path: string, expectStatus = 200): Promise<void> {
    const response = (await page.goto(`${baseUrl}${path}`)) as PageResponse;
    expect(response.status(), path).toBe(expectStatus);
    const headers = await response.allHeaders();
    expectSecurityHeaders(headers, "page");
    await page.waitForLoadState("load");
    const nonce = /'nonce-([^']+)'/.exec(headers["content-security-policy"] ?? "")?.[1];
    // Every inline script (the framework's hydration data) carries this request's nonce; chunks the
    // runtime loads later need none ('strict-dynamic'). The browser hides a nonce attribute's
    // value from the DOM, but not from the .nonce property.
    const inlineNonces = await page
      .locator("script:not([src])")
      .evaluateAll((scripts) => scripts.map((s) => (s as HTMLScriptElement).nonce));
    expect(inlineNonces.length, path).toBeGreaterThan(0);
    expect(new Set(inlineNonces), path).toEqual(new Set([nonce]));
    await collect(page);
  }

  async function collect(page: Page): Promise<void> {
    violations.push(...(await page.evaluate(() => (window as unknown as { __violations: Violation[] }).__violations)));
  }

  it("every console page, signed in as admin, and the public pages: headers, nonces, zero violations, still interactive", async () => {
    watchPageErrors(browser).allow(/status of 404 .*\/(no-such-page|records\/[0-9a-f]{64})\)$/); // the not-found pages the test opens
    const anonymous = await watchedContext();
    const visitor = await anonymous.newPage();
    await visit(visitor, "/sign-in");
    await visit(visitor, "/forbidden?action=tokens:manage");
    // An anonymous page request is sent to sign-in with the headers on the redirect too.
    const redirect = await fetch(`${baseUrl}/records`, { redirect: "manual" });
    expect(redirect.status).toBe(307);
    expectSecurityHeaders(Object.fromEntries(redirect.headers), "page");
    await anonymous.close();

    const context = await watchedContext();
    const page = await context.newPage();
    await signInAs(page, "admin@demo.test", "/");
    await collect(page);

    const pages = [
      "/",
      `/records?tenant=${TENANT}`,
      `/records/${COMPLETED}`,
      `/records/${STUCK}`,
      "/lookup",
      `/lookup?q=${encodeURIComponent(`charge failed: ref ${COMPLETED.slice(0, 12)} and ref ${STUCK.slice(0, 12)}`)}`,
      "/keys",
      `/keys?tenant=${TENANT}&tool=charge_card&args=${encodeURIComponent('{"amount_cents": 100}')}`,
      `/stuck?tenant=${TENANT}`,
      "/metrics?window=24h",
      "/audit",
      "/tools",
      "/forbidden",
    ];
    for (const path of pages) await visit(page, path);
    // Error pages: an unknown path and an absent record are the not-found page, with the same policy.
    await visit(page, "/no-such-page", 404);
    await visit(page, `/records/${key("absent")}`, 404);

    // Still interactive: the metrics charts draw (client components), the header lookup navigates
    // through the client router, a button's click handler runs.
    await visit(page, "/metrics?window=24h");
    await page.waitForSelector('[data-testid="activity-chart"] svg.recharts-surface');
    await screenshot(page, "csp-metrics");
    await visit(page, `/records?tenant=${TENANT}`);
    await page.waitForSelector('#header-lookup[data-shortcut-ready="true"]');
    await page.fill("#header-lookup", COMPLETED.slice(0, 12));
    await page.press("#header-lookup", "Enter");
    await page.waitForURL(new RegExp(`/records/${COMPLETED}$`));
    await page.waitForSelector(`text=${COMPLETED}`);
    await visit(page, `/records?tenant=${TENANT}`);
    const copy = page.getByRole("button", { name: `Copy ref ${COMPLETED.slice(0, 12)}` });
    await copy.click();
    await expect.poll(() => copy.textContent()).toMatch(/^(copied|no access)$/);
    await screenshot(page, "csp-records");
    await visit(page, `/records/${STUCK}`);
    // A button whose click handler fetches from this origin (connect-src 'self'), through the proxy's headers.
    const [check] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/api/v1/records/${STUCK}/check`)),
      page.getByRole("button", { name: "Ask the processor" }).click(),
    ]);
    expect(check.status()).toBe(200);
    expectSecurityHeaders(await check.allHeaders(), "api");
    await page.getByRole("button", { name: "Ask again" }).waitFor();
    await screenshot(page, "csp-record-stuck");
    await collect(page);
    await context.close();

    expect(violations).toEqual([]);
    expect(cspConsole).toEqual([]);
  }, 180_000);

  it("a page reached as 127.0.0.1 when the public URL says localhost goes to localhost (its cookie and Origin check are there)", async () => {
    const alias = baseUrl.replace("//localhost:", "//127.0.0.1:");
    expect(alias, "the test console's public URL is localhost").not.toBe(baseUrl);
    const answer = await fetch(`${alias}/stuck?tool=charge_card`, { redirect: "manual" });
    expect([answer.status, answer.headers.get("refresh")]).toEqual([200, `0; url=${baseUrl}/stuck?tool=charge_card`]);
    // A browser follows it to the public name, where signing in works.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${alias}/stuck?tool=charge_card`);
    await page.waitForURL(`${baseUrl}/sign-in?callbackUrl=%2Fstuck%3Ftool%3Dcharge_card`);
    await context.close();
    // The API is not redirected: a script calling it by address gets its answer (or its 401) as before.
    const api = await fetch(`${alias}/api/v1/records`, { redirect: "manual" });
    expect(api.status).toBe(401);
  });

  it("API answers, sign-in's JSON, health and static files carry the headers too", async () => {
    const unauthenticated = await fetch(`${baseUrl}/api/v1/records`);
    expect(unauthenticated.status).toBe(401);
    expectSecurityHeaders(Object.fromEntries(unauthenticated.headers), "api");
    const badToken = await fetch(`${baseUrl}/api/v1/me`, { headers: { authorization: "Bearer idem_nope" } });
    expect(badToken.status).toBe(401);
    expectSecurityHeaders(Object.fromEntries(badToken.headers), "api");
    // Each API header once, whole: from next.config.ts where the proxy is skipped (no `%`), and
    // not doubled where it runs (`%73` is "s": the same route, through the proxy).
    for (const path of ["/api/v1/records", "/api/v1/record%73"]) {
      const response = await fetch(`${baseUrl}${path}`);
      expect(response.status, path).toBe(401);
      for (const [name, value] of Object.entries(API_SECURITY_HEADERS))
        if (name === "Cache-Control")
          // A small JSON answer adds no-transform (lib/api/json-answer.ts); through the proxy it is the plain value.
          expect(response.headers.get(name), `${path} ${name}`).toMatch(/^no-store(, no-transform)?$/);
        else expect(response.headers.get(name), `${path} ${name}`).toBe(value);
    }
    for (const path of ["/api/health", "/api/auth/providers", "/api/auth/csrf"]) {
      const response = await fetch(`${baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      expectSecurityHeaders(Object.fromEntries(response.headers), "api");
    }
    const html = await (await fetch(`${baseUrl}/sign-in`)).text();
    const asset = /\/_next\/static\/[^"]+\.js/.exec(html)?.[0];
    expect(asset).toBeDefined();
    const file = await fetch(`${baseUrl}${asset}`);
    expect(file.status).toBe(200);
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("x-frame-options")).toBe("DENY");
  });
});
