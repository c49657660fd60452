import { createHash, randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { deriveKey } from "idem-guard";
import { browserMissing, launchChromium } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";
import { signInInContext } from "../helpers/sign-in";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `st-${run}`;
const SUBJECT = `cust_${run}`;
const SERVER_RENDER = { timeout: 15_000, interval: 100 };
const ARGS = '{"amount_cents": 24000, "card": "c_4242", "order": "A-1009"}';
const CHANGED = '{"amount_cents": 24000, "card": "c_4243", "order": "A-1009"}';

const rowKeys = (page: Page) =>
  page
    .locator('[data-testid="records-table"] tbody tr')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-key")));

// Support's tools in Chromium: one customer's calls from the filter bar, then whether the
// arguments the customer describes are the ones behind a record.
describe.skipIf(browserMissing)("support tools in Chromium: filter by subject, check arguments", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  let browser: Browser;
  let pageErrors: PageErrorWatch;
  const createdAt = new Date(Math.floor(Date.now() / 1000) * 1000 - 30 * 60_000);
  const charge = deriveKey({
    tenant: TENANT,
    subject: SUBJECT,
    tool: "charge_card",
    argumentsJson: ARGS,
    at: createdAt,
  });

  beforeAll(async () => {
    browser = await launchChromium();
    pageErrors = watchPageErrors(browser);
    const key = (i: number) => createHash("sha256").update(`st|${run}|${i}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES
       ($1, $2, $3, 'charge_card', 'completed', '{"id":"ch_1","status":"succeeded"}', $4, $4)`,
      [charge.key, TENANT, SUBJECT, createdAt],
    );
    // Four more of the customer's calls, and other customers' calls of the same tenant around them.
    for (let i = 0; i < 10; i++) {
      await pool.query(
        `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at) VALUES ($1, $2, $3, $4, 'completed', now() - make_interval(mins => $5))`,
        [
          key(i),
          TENANT,
          i % 2 === 0 ? SUBJECT : `other_${i}_${run}`,
          i % 3 === 0 ? "create_shipment" : "charge_card",
          5 + i * 7,
        ],
      );
    }
  });
  afterEach(() => pageErrors.expectNoPageErrors());
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  it("filters /records by subject from the filter bar: exactly the subject's rows, in the URL", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await signInInContext(context, "viewer@demo.test", `/records?tenant=${TENANT}`);
    await page.waitForSelector('[data-testid="records-table"]');
    expect(await rowKeys(page)).toHaveLength(11);

    await page.fill('[data-testid="subject-filter"]', SUBJECT);
    await page.press('[data-testid="subject-filter"]', "Enter");
    await page.waitForURL((url) => url.searchParams.get("subject") === SUBJECT);
    const expected = (
      await pool.query<{ key: string }>(
        `SELECT key FROM idempotency WHERE tenant = $1 AND subject = $2 ORDER BY created_at DESC, key DESC`,
        [TENANT, SUBJECT],
      )
    ).rows.map((r) => r.key);
    expect(expected).toHaveLength(6);
    await expect.poll(() => rowKeys(page), SERVER_RENDER).toEqual(expected);
    expect(await page.inputValue('[data-testid="subject-filter"]')).toBe(SUBJECT);
    // The export link carries the same filter.
    expect(await page.locator('a[href*="/api/v1/records/export"]').first().getAttribute("href")).toContain(
      `subject=${SUBJECT}`,
    );

    mkdirSync("docs/screenshots/mobile", { recursive: true });
    await page.screenshot({ path: "docs/screenshots/records-subject.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 900 });
    await page.screenshot({ path: "docs/screenshots/mobile/records-subject.png", fullPage: true });

    // A subject with a control character is a notice on the page, not a crash or an empty list.
    await page.goto(`${baseUrl}/records?subject=a%01b`);
    await expect
      .poll(() => page.locator('[data-testid="records-query-problems"]').textContent(), SERVER_RENDER)
      .toContain("subject: control characters are not allowed");
    await context.close();
  });

  it("checks arguments on a record: yes for the customer's arguments, no with the differing byte for one field changed", async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
    const page = await signInInContext(context, "viewer@demo.test", `/records/${charge.key}`);
    const panel = page.locator('section[aria-label="Check arguments"]');
    await panel.waitFor();
    const answer = panel.locator('[role="status"][aria-label="argument check"]');

    await page.fill('[data-testid="check-arguments-input"]', ARGS);
    await panel.locator('button[type="submit"]').click();
    const verdict = panel.locator('[data-testid="check-verdict"]');
    await expect.poll(() => verdict.getAttribute("data-verdict"), SERVER_RENDER).toBe("match");
    expect(await verdict.textContent()).toContain(
      `Yes — these arguments derive this record's key in this record's bucket (bucket ${charge.bucket}`,
    );
    // The answer region takes focus, so the answer is where a keyboard user lands.
    expect(await answer.evaluate((el) => el === document.activeElement)).toBe(true);
    // The matching text is now the reference.
    expect(await page.inputValue('[data-testid="check-arguments-reference"]')).toBe(ARGS);

    await page.fill('[data-testid="check-arguments-input"]', CHANGED);
    await panel.locator('button[type="submit"]').click();
    await expect.poll(() => verdict.getAttribute("data-verdict"), SERVER_RENDER).toBe("no_match");
    // {"amount_cents":24000,"card":"c_424 is 35 bytes: byte 35 is the card's last digit.
    const diff = panel.locator('[data-testid="check-diff"]');
    expect(await diff.getAttribute("data-offset")).toBe("35");
    expect(await diff.textContent()).toContain("offset 35");
    expect(await answer.evaluate((el) => el === document.activeElement)).toBe(true);

    await panel.screenshot({ path: "docs/screenshots/check-arguments.png" });
    await page.setViewportSize({ width: 390, height: 900 });
    await panel.screenshot({ path: "docs/screenshots/mobile/check-arguments.png" });
    await page.setViewportSize({ width: 1440, height: 1000 });

    // Text that is not JSON: the parser's message, in the same place.
    pageErrors.allow(/status of 400 \(Bad Request\).*check-arguments/); // the API's refusal, the answer this step expects
    await page.fill('[data-testid="check-arguments-input"]', "{amount_cents: 1");
    await panel.locator('button[type="submit"]').click();
    await expect
      .poll(() => panel.locator('[data-testid="check-arguments-error"]').textContent(), SERVER_RENDER)
      .toMatch(/^args: not valid JSON — /);
    expect(await page.getAttribute('[data-testid="check-arguments-input"]', "aria-invalid")).toBe("true");
    await context.close();
  });
});
