import type { Browser, Page } from "playwright-core";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { startConsoleProcess, type ConsoleProcess } from "../helpers/console-process";
import { freePort } from "../helpers/free-port";
import { startOidcIssuer, type OidcIssuer } from "../helpers/oidc-issuer";
import { runCli } from "../helpers/run-cli";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { watchPageErrors } from "../helpers/page-errors";

// Outside demo mode people sign in only through an identity provider. Here the provider is a real
// one (oidc-provider) on loopback, the console runs as `idem serve` does, and Chromium clicks
// through the provider's login and consent pages, as a person would.
const LISTED = { email: "dana@oidc.test", name: "Dana Listed", role: "operator", tenants: ["acme", "globex"] };
const UNLISTED = { email: "uma@oidc.test", name: "Uma Unlisted" };
const DISABLED = { email: "dirk@oidc.test", name: "Dirk Disabled" };
const UNVERIFIED = { email: "vera@oidc.test", name: "Vera Unverified", emailVerified: false };

describe.skipIf(browserMissing)("OIDC sign-in against a real provider, in Chromium", () => {
  let database: TestDatabase;
  let issuer: OidcIssuer;
  let consoleProcess: ConsoleProcess;
  let sql: pg.Client;
  let browser: Browser;

  beforeAll(async () => {
    database = await createTestDatabase();
    const port = await freePort();
    issuer = await startOidcIssuer({
      redirectUri: `http://localhost:${port}/api/auth/callback/oidc`,
      people: [LISTED, UNLISTED, DISABLED, UNVERIFIED],
    });
    const cli = async (...args: string[]) => {
      const result = await runCli(args, { DATABASE_URL: database.url });
      if (result.code !== 0) throw new Error(`idem ${args.join(" ")} failed:\n${result.stderr}`);
    };
    // The user list, as an operator fills it in: a listed user with a role and tenants, and one disabled.
    await cli(
      "user",
      "add",
      "--email",
      LISTED.email,
      "--name",
      LISTED.name,
      "--role",
      LISTED.role,
      ...LISTED.tenants.flatMap((t) => ["--tenant", t]),
    );
    await cli("user", "add", "--email", DISABLED.email, "--role", "admin");
    await cli("user", "disable", DISABLED.email);
    // Listed, but the provider has not verified the address: anyone could have claimed it there.
    await cli("user", "add", "--email", UNVERIFIED.email, "--role", "admin");
    consoleProcess = await startConsoleProcess({
      port,
      command: "serve",
      env: {
        DATABASE_URL: database.url,
        IDEM_DEMO: undefined,
        IDEM_CONFIG: undefined,
        OIDC_ISSUER: issuer.issuer,
        OIDC_CLIENT_ID: issuer.clientId,
        OIDC_CLIENT_SECRET: issuer.clientSecret,
        OIDC_NAME: "Test IdP",
        GITHUB_ID: undefined,
        GITHUB_SECRET: undefined,
      },
    });
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
    browser = await launchChromium();
  }, 600_000);

  beforeEach(() => {
    const pageErrors = watchPageErrors(browser);
    // The provider's own login pages are not the console's (they ask for a web font the sandbox can't reach).
    pageErrors.allow(new RegExp(`^console\\.error on ${issuer.issuer.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/`));
    pageErrors.allow(/status of 401 .*\/api\/v1\/me\)$/); // the signed-out check each refusal makes
  });

  afterAll(async () => {
    await browser?.close();
    await sql?.end();
    await consoleProcess?.stop();
    await issuer?.stop();
    await database?.drop();
  });

  /** From a console page to the provider's login page, by the sign-in page's only button. */
  async function toProviderLogin(page: Page, path: string): Promise<void> {
    await page.goto(`${consoleProcess.baseUrl}${path}`);
    await page.waitForURL(/\/sign-in\?callbackUrl=/);
    expect(await page.locator('input[name="password"]').count()).toBe(0); // no demo passwords outside demo mode
    await page.click("text=Continue with Test IdP");
    await page.waitForURL((url) => url.origin === issuer.issuer && url.pathname.startsWith("/interaction/"));
  }

  /** The provider's own pages: log in as `email` (its dev login takes any password), then consent. */
  async function logInAtProvider(page: Page, email: string): Promise<void> {
    await page.fill('input[name="login"]', email);
    await page.fill('input[name="password"]', "whatever-the-idp-checks");
    await page.click('button[type="submit"]');
    await page.waitForSelector("text=Continue"); // the consent page
    await page.click('button[type="submit"]');
  }

  async function failuresFor(account: string) {
    const { rows } = await sql.query<{
      reason: string;
      evidence: { provider: string; account: string; client: string };
    }>(
      "SELECT reason, evidence FROM audit_log WHERE action = 'auth.sign_in_failed' AND evidence->>'account' = $1 ORDER BY id",
      [account],
    );
    return rows;
  }

  async function sessionCount(): Promise<number> {
    return (await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM console_session")).rows[0]!.n;
  }

  const me = (page: Page) =>
    page.evaluate(() => fetch("/api/v1/me").then(async (r) => ({ status: r.status, body: await r.json() })));

  it("a listed user signs in through the provider and lands in the console with their role and tenants", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await toProviderLogin(page, "/records");
    await logInAtProvider(page, LISTED.email);
    await page.waitForURL(`${consoleProcess.baseUrl}/records`);

    expect(await me(page)).toEqual({
      status: 200,
      body: { kind: "user", name: LISTED.email, role: LISTED.role, tenants: LISTED.tenants },
    });
    expect(await page.textContent('[data-testid="user-name"]')).toBe(LISTED.name);
    expect(await page.textContent('[data-testid="user-role"]')).toBe(LISTED.role);
    expect(await page.textContent("header")).toContain(LISTED.tenants.join(", "));
    await screenshot(page, "oidc-signed-in-operator");

    const { rows } = await sql.query<{ sessions: number; last_sign_in_at: Date | null }>(
      "SELECT (SELECT count(*)::int FROM console_session s WHERE s.user_id = u.id AND s.ended_at IS NULL) AS sessions, u.last_sign_in_at FROM console_user u WHERE email = $1",
      [LISTED.email],
    );
    expect(rows[0]!.sessions).toBe(1);
    expect(rows[0]!.last_sign_in_at).not.toBeNull();
    expect(await failuresFor(LISTED.email)).toEqual([]);
    await context.close();
  });

  it.each([
    ["an unlisted user", UNLISTED.email, "not a console user"],
    ["a disabled user", DISABLED.email, "account disabled"],
    [
      "a listed user whose e-mail the provider has not verified",
      UNVERIFIED.email,
      "e-mail not verified by the provider",
    ],
  ])(
    "%s is refused at the console with a clear message, no session, and an auth.sign_in_failed row",
    async (_who, email, reason) => {
      const sessionsBefore = await sessionCount();
      const context = await browser.newContext();
      const page = await context.newPage();
      await toProviderLogin(page, "/");
      await logInAtProvider(page, email);
      await page.waitForURL(
        (url) =>
          url.origin === consoleProcess.baseUrl &&
          url.pathname === "/sign-in" &&
          url.searchParams.get("error") === "NotAllowed",
      );
      expect(await page.textContent('[data-testid="sign-in-error"]')).toMatch(
        /no access to Idem Console, or it was disabled/,
      );
      expect((await me(page)).status).toBe(401);
      expect(await sessionCount()).toBe(sessionsBefore);
      expect(await failuresFor(email)).toEqual([
        { reason, evidence: { provider: "oidc", account: email, client: "provider" } },
      ]);
      await context.close();
    },
  );

  it("a callback whose state was tampered with is refused before the code is exchanged, and audited", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const sessionsBefore = await sessionCount();
    const exchangedBefore = issuer.codesExchanged();
    const refusedBefore = (await failuresFor("(unknown)")).length;
    const genuineCallback = issuer.tamperWithNextCallbackState();
    await toProviderLogin(page, "/records");
    await logInAtProvider(page, LISTED.email);
    // The console asked with a state and a PKCE challenge of its own (a client that sends no state
    // would be refused here only by the accident of an unexpected one).
    const asked = issuer.lastAuthorizationRequest();
    expect(asked?.get("state") ?? "(no state)").toMatch(/^[\w-]{20,}$/);
    expect(asked?.get("code_challenge_method")).toBe("S256");
    await page.waitForURL((url) => url.pathname === "/sign-in" && url.searchParams.get("error") === "OAuthCallback");
    expect(await page.textContent('[data-testid="sign-in-error"]')).toBe(
      "The identity provider's answer could not be verified. Try again.",
    );
    expect((await me(page)).status).toBe(401);
    expect(await sessionCount()).toBe(sessionsBefore);
    expect(issuer.codesExchanged()).toBe(exchangedBefore);
    await expect
      .poll(async () => (await failuresFor("(unknown)")).slice(refusedBefore))
      .toEqual([
        { reason: "OAUTH_CALLBACK_ERROR", evidence: { provider: "oidc", account: "(unknown)", client: "provider" } },
      ]);

    // The control: the same redirect with the state the console issued signs the user in, so the
    // refusal above was the state's doing and nothing else.
    await page.goto((await genuineCallback).toString());
    await page.waitForURL(`${consoleProcess.baseUrl}/records`);
    expect((await me(page)).body).toMatchObject({ kind: "user", name: LISTED.email });
    expect(issuer.codesExchanged()).toBe(exchangedBefore + 1);
    await context.close();
  });
});
