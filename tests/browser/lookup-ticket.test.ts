import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { signInAs } from "../helpers/sign-in";
import { axeViolations } from "../helpers/axe";

const run = randomBytes(3).toString("hex");
const TENANT = `ticket-${run}`;
const keyOf = (name: string) => createHash("sha256").update(`lookup-ticket|${run}|${name}`).digest("hex");

describe.skipIf(browserMissing)("lookup of a whole ticket, in Chromium: one answer per ref, in order", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  let browser: Browser;
  const timedOut = keyOf("timed-out");
  const retried = keyOf("retried");
  const unknown = keyOf("never-written").slice(0, 12);

  beforeAll(async () => {
    browser = await launchChromium();
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at) VALUES
         ($1, $3, 'user_7', 'charge_card', 'in_progress', now() - interval '3 minutes'),
         ($2, $3, 'user_7', 'charge_card', 'completed', now() - interval '2 minutes')`,
      [timedOut, retried, TENANT],
    );
  });
  afterAll(async () => {
    await browser?.close();
    await pool.end();
  });

  it.each([1440, 390])(
    "support pastes the customer's thread at %i px: each ref answered, the unknown one said",
    async (width) => {
      const context = await browser.newContext({ viewport: { width, height: 1000 } });
      const page = await context.newPage();
      const thread = `First time: payment timed out, ref ${timedOut.slice(0, 12)}. Second attempt: 'already in progress (ref ${retried.slice(0, 12)})'. Then ref ${unknown}. Am I charged twice?`;
      await signInAs(page, "viewer@demo.test", `/lookup?q=${encodeURIComponent(thread)}`);
      await page.waitForSelector('[data-testid="ticket-answers"]');
      const answers = page.locator('[data-testid="ticket-answer"]');
      expect(await answers.count()).toBe(3);
      const read = async (i: number) => [
        await answers.nth(i).getAttribute("data-token"),
        await answers.nth(i).getAttribute("data-outcome"),
      ];
      expect([await read(0), await read(1), await read(2)]).toEqual([
        [timedOut.slice(0, 12), "found"],
        [retried.slice(0, 12), "found"],
        [unknown, "unknown"],
      ]);
      // Two quoted refs are two answers: no "choose by tenant, tool and time" between them.
      expect(await page.getByText("choose by tenant, tool and time").count()).toBe(0);
      await answers
        .nth(1)
        .getByRole("link", { name: `Open the record of ${retried.slice(0, 12)}` })
        .waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      const violations = (await axeViolations(page)).map((v) => v.id);
      expect(violations).toEqual([]);
      await screenshot(page, `lookup-ticket-${width}`);
      await context.close();
    },
  );
});
