import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { withIdempotency, type GuardResult, OutcomeUnknownError } from "idem-guard";
import { signInAs, signInInContext } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { controlsShortOfTheirWords } from "../helpers/clipped-controls";
import { seriousViolations } from "../helpers/axe";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `sf-${run}`;

// Support's minute: a customer's error message in hand, did the charge happen, what should they do?
describe.skipIf(browserMissing)("support flow in Chromium: paste a message, land on the record, ask, explain", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  let stuck: GuardResult<unknown>;
  let completed: GuardResult<unknown>;
  let earlier: GuardResult<unknown>;
  let callAt: Date;
  const collisionRef = randomBytes(6).toString("hex");

  const chargeCard = (at: Date, timeout = false) =>
    withIdempotency(
      { db: pool, tool: "charge_card", statusTool: "get_charge_status", noun: "A charge", clock: () => at },
      async ({ key }) => {
        if (timeout) throw new OutcomeUnknownError("processor timeout", 30_000);
        return { id: `ch_${run}`, status: "succeeded", amount_cents: 24_000, card: "c_4242", reference: key };
      },
    );
  const call = (amount: number) => ({
    tenant: TENANT,
    subject: "user_1",
    argumentsJson: JSON.stringify({ amount_cents: amount, card: "c_4242" }),
  });

  beforeAll(async () => {
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
    // A minute into a 15-minute bucket 20–35 minutes ago: the repeat 45 s later derives the same key.
    const claimedAt = new Date(Math.floor((Date.now() - 20 * 60_000) / 900_000) * 900_000 + 60_000);
    await chargeCard(claimedAt, true)(call(1_500));
    stuck = await chargeCard(new Date(claimedAt.getTime() + 45_000))(call(1_500)); // the repeat the customer saw
    // Two minutes into a bucket an hour ago, and the same call 14 minutes before it, one bucket earlier.
    callAt = new Date((Math.floor(Date.now() / 900_000) - 4) * 900_000 + 2 * 60_000);
    earlier = await chargeCard(new Date(callAt.getTime() - 14 * 60_000))(call(24_000));
    completed = await chargeCard(callAt)(call(24_000));
    await chargeCard(callAt)(call(24_000)); // a replay
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at) VALUES
       ($1, $3, 'user_7', 'charge_card', 'completed', now() - interval '3 hours'), ($2, $4, 'user_2', 'create_shipment', 'in_progress', now() - interval '40 minutes')`,
      [collisionRef + "a".repeat(52), collisionRef + "b".repeat(52), TENANT, `${TENANT}-b`],
    );
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  it("a whole error message pasted into the header box lands on its record; the processor check answers", async () => {
    if (stuck.outcome !== "in_flight") throw new Error(`expected in_flight, got ${stuck.outcome}`);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAs(page, "viewer@demo.test");
    // Hydrated: the "/" shortcut listens and the box submits through the router (before that a
    // keystroke goes nowhere — a CI run under load lost the whole paste that way).
    await page.waitForSelector('#header-lookup[data-shortcut-ready="true"]');
    await page.keyboard.press("/");
    await page.keyboard.type(`Customer wrote: "${stuck.message}"`);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${baseUrl}/records/${stuck.key}`);

    expect(await page.textContent('[data-testid="record-ref"]')).toBe(stuck.ref);
    expect(await page.textContent('[data-testid="record-status"]')).toBe("in_progress · stuck");
    expect(await page.textContent('[data-testid="in-flight-message"]')).toContain(
      `already in progress (ref ${stuck.ref})`,
    );
    expect(await page.textContent('[data-testid="timeline"]')).toMatch(/Claimed.*Outcome unknown.*Repeat rejected/s);
    // Its 15-minute bucket ended minutes ago: the page says what repeats received, and that one now runs again.
    expect(await page.getByRole("region", { name: "What a repeat caller received" }).count()).toBe(1);
    expect(await page.textContent('[data-testid="bucket-ended-note"]')).toMatch(
      /^Its time bucket ended .+ UTC: an identical call now derives a new key and runs again\. Until then, a repeat was refused as below\.$/,
    );

    // The console under test may run with the demo world's processor configured, or with none.
    // With one, make the processor take this very reference (as a charge the server never heard
    // back about would have) and expect "taken"; with none, the honest answer is "unknown" and why.
    const detail = (await page.evaluate((key) => fetch(`/api/v1/records/${key}`).then((r) => r.json()), stuck.key)) as {
      processor: string | null;
    };
    const processorUrl = /^GET (http\S+)\/references\/\{key\}$/.exec(detail.processor ?? "")?.[1];
    if (processorUrl) {
      const charged = await fetch(`${processorUrl}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_4242", amount_cents: 1_500, reference: stuck.key }),
      });
      expect(charged.status).toBe(200);
    }
    if (processorUrl) {
      await page.click('button:has-text("Ask the processor")');
      await page.waitForSelector('[data-testid="processor-outcome"]');
      const outcome = await page.getAttribute('[data-testid="processor-outcome"]', "data-outcome");
      const reason = await page.textContent('[data-testid="processor-reason"]');
      expect([outcome, reason]).toEqual(["taken", "the processor says the operation happened (status succeeded)"]);
      expect(await page.textContent('[data-testid="processor-outcome"]')).toContain(`"reference": "${stuck.key}"`); // the receipt
    } else {
      // Nobody to ask: the page says so instead of offering a question no one can answer.
      expect(await page.textContent('[data-testid="nobody-to-ask"]')).toMatch(
        /^There is no processor to ask for charge_card/,
      );
    }
    await screenshot(page, "record");
    await page.close();
  });

  it("an operator sees it masked too, reveals it with a reason, and the reveal is in the audit log", async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await signInInContext(context, "operator@demo.test", `/records/${completed.key}`);
    await page.waitForSelector('[data-testid="redaction-note"]');
    expect(await page.textContent("main")).not.toContain("c_4242");
    await page.click('[data-testid="reveal-open"]:not([disabled])');
    await page.fill('input[name="reason"]', `ticket ${run}: which card was charged?`);
    await page.click('[data-testid="reveal-submit"]');
    await page.waitForSelector('[data-testid="revealed-response"]');
    expect(await page.textContent('[data-testid="revealed-response"]')).toContain("c_4242");
    await screenshot(page, "record-revealed");
    const audit = await pool.query(
      `SELECT actor, action, reason FROM audit_log WHERE key = $1 AND action = 'record.reveal'`,
      [completed.key],
    );
    expect(audit.rows).toEqual([
      { actor: "operator@demo.test", action: "record.reveal", reason: `ticket ${run}: which card was charged?` },
    ]);

    // A viewer's session cannot reveal, even by calling the API itself; the refusal is audited.
    pageErrors.allow(/status of 403 .*\/api\/v1\/records\/[0-9a-f]{64}\/reveal\)$/); // that refusal, as Chromium logs it
    const viewer = await signInInContext(await browser.newContext(), "viewer@demo.test", "/records");
    const status = await viewer.evaluate(
      (key) =>
        fetch(`/api/v1/records/${key}/reveal`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ reason: "curious" }),
        }).then((r) => r.status),
      completed.key,
    );
    expect(status).toBe(403);
    const denied = await pool.query(
      `SELECT actor, evidence FROM audit_log WHERE action = 'access.denied' AND evidence->>'path' = $1`,
      [`/api/v1/records/${completed.key}/reveal`],
    );
    expect(denied.rows).toEqual([
      {
        actor: "viewer@demo.test",
        evidence: expect.objectContaining({ status: 403, code: "forbidden", permission: "records:reveal" }),
      },
    ]);
    await viewer.context().close();
    await context.close();
  });

  it("a viewer sees the stored response redacted; a ref shared by two records offers a choice", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAs(page, "viewer@demo.test");
    await page.goto(`${baseUrl}/records/${completed.key}`);
    await page.waitForSelector('[data-testid="redaction-note"]');
    const main = (await page.textContent("main")) ?? "";
    expect(main).toContain("[redacted]");
    expect(main).not.toContain("c_4242");
    expect(await page.textContent('[data-testid="record-status"]')).toBe("completed");

    await page.goto(`${baseUrl}/lookup?q=${encodeURIComponent(`ref '${collisionRef}'`)}`);
    await page.waitForSelector('[data-testid="lookup-matches"]');
    const rows = await page.locator('[data-testid="lookup-match"]').allTextContents();
    expect(rows).toHaveLength(2);
    expect(rows.join(" ")).toContain(`${TENANT}-b`);
    await screenshot(page, "lookup");

    await page.goto(`${baseUrl}/lookup?q=${encodeURIComponent("no ref here, order 7")}`);
    expect(await page.textContent('[data-testid="lookup-message"]')).toMatch(/No ref found/);
    await page.close();
  });

  it("a tenant-limited viewer gets not-found for another tenant's record, in the page and the API", async () => {
    // Intended: the page and both API calls answer 404, and Chromium logs each as a failed load.
    pageErrors.allow(/status of 404 .*\/records\/[0-9a-f]{64}(\/check)?\)$/);
    const page = await browser.newPage();
    await signInAs(page, "acme-support@demo.test");
    const response = await page.goto(`${baseUrl}/records/${completed.key}`);
    // Absent, not forbidden: the record's existence is data too. (No loading.tsx wraps the detail
    // page, so nothing streams before notFound() sets the status.)
    expect(response?.status()).toBe(404);
    await page.waitForSelector("text=Nothing here");
    const shown = await page.innerText("main");
    expect(shown).toContain("not yours to see");
    expect(shown).not.toContain(TENANT);
    expect(await page.evaluate((key) => fetch(`/api/v1/records/${key}`).then((r) => r.status), completed.key)).toBe(
      404,
    );
    expect(
      await page.evaluate(
        (key) => fetch(`/api/v1/records/${key}/check`, { method: "POST" }).then((r) => r.status),
        completed.key,
      ),
    ).toBe(404);
    await page.close();
  });

  it("the key explainer shows the same call 14 minutes earlier in the previous bucket", async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await signInAs(page, "viewer@demo.test");
    const query = new URLSearchParams({
      tenant: TENANT,
      subject: "user_1",
      tool: "charge_card",
      args: '{"card": "c_4242", "amount_cents": 24000}',
      at: callAt.toISOString(),
      window: "900",
      compare: '{"amount_cents": 24000.0, "card": "c_4242"}',
    });
    await page.goto(`${baseUrl}/keys?${query}`);
    await page.waitForSelector('[data-testid="bucket-previous"]');
    expect(await page.textContent('[data-testid="explain-key"]')).toBe(completed.key);
    const previous = (await page.textContent('[data-testid="bucket-previous"]')) ?? "";
    expect(previous).toContain(earlier.ref);
    expect(previous).toContain("The same call 14 min earlier fell in the previous bucket");
    expect(await page.textContent('[data-testid="bucket-same"]')).toContain(completed.ref);
    expect(await page.textContent('[data-testid="explain-diff-offset"]')).toMatch(/first differ at byte 21/);
    // The form's fields line up: each row's controls at one height, none too small for its words.
    const tops = await page.evaluate(() =>
      ["tenant", "subject", "tool", "at", "window", "scheme"].map(
        (id) => `${id}@${Math.round(document.getElementById(id)!.getBoundingClientRect().top)}`,
      ),
    );
    expect(new Set(tops.slice(0, 3).map((t) => t.split("@")[1])).size, tops.join(" ")).toBe(1);
    expect(new Set(tops.slice(3).map((t) => t.split("@")[1])).size, tops.join(" ")).toBe(1);
    expect((await controlsShortOfTheirWords(page)).join("; ")).toBe("");
    await screenshot(page, "keys");

    await page.click(`[data-testid="bucket-previous"] a`);
    await page.waitForURL(`${baseUrl}/records/${earlier.key}`);
    await page.goto(`${baseUrl}/keys?tenant=t&tool=x&args=%7Bbad&window=soon`);
    expect(await page.textContent('[data-testid="error-window"]')).toMatch(/^window: expected whole seconds/);
    expect(await page.textContent('[data-testid="error-args"]')).toMatch(/^args: not valid JSON/);
    // Each error belongs to its field (described by it, marked invalid), and the first invalid field has focus.
    const fieldState = (id: string) =>
      page.evaluate((i) => {
        const el = document.getElementById(i)!;
        return `${el.getAttribute("aria-invalid")} ${el.getAttribute("aria-describedby")}`;
      }, id);
    expect(await fieldState("window")).toBe("true window-hint window-error");
    expect(await fieldState("args")).toBe("true args-error");
    expect(await fieldState("tool")).toBe("null null");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("window");
    await page.close();

    // On a phone the byte table scrolls sideways: a keyboard can focus it, and the result is axe-clean.
    const phoneContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const phone = await phoneContext.newPage();
    await signInAs(phone, "viewer@demo.test");
    await phone.goto(`${baseUrl}/keys?${query}`);
    await phone.waitForSelector('[data-testid="explain-diff-offset"]');
    expect(await phone.getAttribute('[role="region"][aria-label^="arguments and compare"]', "tabindex")).toBe("0");
    expect(await seriousViolations(phone)).toEqual([]);
    await phoneContext.close();
  });
});
