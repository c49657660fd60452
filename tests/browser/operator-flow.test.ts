import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { signInAs } from "../helpers/sign-in";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { watchPageErrors, type PageErrorWatch } from "../helpers/page-errors";

const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `op-${run}`;

// An operator's morning: claims stuck after processor timeouts; ask the processor, clear them in
// bulk and one by one, without a second charge and with every step in the audit log.
describe.skipIf(browserMissing)(
  "operator flow in Chromium: stuck list, bulk plan and apply, resolve one on its record page",
  () => {
    const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
    let browser: Browser;
    let pageErrors: PageErrorWatch;
    let processorUrl: string | null = null;
    let n = 0;

    beforeAll(async () => {
      browser = await launchChromium();
      pageErrors = watchPageErrors(browser);
    });
    afterEach(() => pageErrors.expectNoPageErrors());
    afterAll(async () => {
      await browser?.close();
      await pool.end();
    });

    async function stuckClaim(minutesAgo: number, subject = "user_1") {
      n += 1;
      const key = createHash("sha256").update(`operator-flow|${run}|${n}`).digest("hex");
      await pool.query(
        `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at) VALUES ($1, $2, $3, 'charge_card', 'in_progress', now() - make_interval(mins => $4))`,
        [key, TENANT, subject, minutesAgo],
      );
      return key;
    }
    /** Makes the demo world's processor hold a succeeded charge under this reference: the call "was taken". */
    async function charge(key: string) {
      if (!processorUrl) throw new Error("no processor");
      const response = await fetch(`${processorUrl}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_4242", amount_cents: 1_200 + n, reference: key }),
      });
      expect(response.status).toBe(200);
    }
    /** The console runs the demo world: its record API names the processor it asks. */
    async function findProcessor(page: Page, key: string) {
      const detail = (await page.evaluate((k) => fetch(`/api/v1/records/${k}`).then((r) => r.json()), key)) as {
        processor: string | null;
      };
      processorUrl = /^GET (http\S+)\/references\/\{key\}$/.exec(detail.processor ?? "")?.[1] ?? null;
      expect(processorUrl, "the browser project's console is expected to run the demo processor").not.toBeNull();
    }
    const statusOf = async (key: string) =>
      (await pool.query<{ status: string }>(`SELECT status FROM idempotency WHERE key = $1`, [key])).rows[0]?.status ??
      null;
    const auditOf = async (key: string) =>
      (
        await pool.query<{ action: string; actor: string; reason: string }>(
          `SELECT action, actor, reason FROM audit_log WHERE key = $1 ORDER BY id`,
          [key],
        )
      ).rows;

    it("an operator sees the stuck claims, plans for the selected ones, applies, and they are resolved", async () => {
      const taken = await stuckClaim(45, "user_taken");
      const notTaken = await stuckClaim(30, "user_not_taken");
      const untouched = await stuckClaim(20, "user_untouched");
      await stuckClaim(1); // not stuck yet: not on the page
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await signInAs(page, "operator@demo.test");
      await findProcessor(page, taken);
      await charge(taken);
      await charge(untouched);

      await page.goto(`${baseUrl}/stuck?tenant=${TENANT}`);
      await page.waitForSelector('[data-testid="stuck-table"]');
      const rows = await page
        .locator('[data-testid="stuck-table"] tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-key")));
      expect(rows).toEqual([taken, notTaken, untouched]); // oldest first (most at risk), the young claim absent
      expect(await page.textContent('[data-testid="stuck-total"]')).toBe("3");
      expect(await page.textContent('[data-tool="charge_card"] [data-testid="stuck-tool-count"]')).toBe("3");
      expect(await page.textContent("main")).toContain(
        "The threshold must exceed the longest a processor call can take",
      );
      expect(await page.isChecked('[data-testid="auto-refresh"]')).toBe(false);
      await screenshot(page, "stuck");

      // Auto-refresh goes into the URL and comes back off.
      await page.check('[data-testid="auto-refresh"]');
      await page.waitForURL(/refresh=true/);
      await page.uncheck('[data-testid="auto-refresh"]');
      await page.waitForURL((url) => !url.search.includes("refresh"));

      await page.check(`tr[data-key="${taken}"] input[type="checkbox"]`);
      await page.check(`tr[data-key="${notTaken}"] input[type="checkbox"]`);
      await page.click('[data-testid="plan-selected"]');
      await page.waitForSelector('[data-testid="bulk-plan"][data-phase="planned"]');
      expect(await page.getAttribute(`[data-testid="bulk-plan-table"] tr[data-key="${taken}"]`, "data-proposed")).toBe(
        "complete",
      );
      expect(
        await page.getAttribute(`[data-testid="bulk-plan-table"] tr[data-key="${notTaken}"]`, "data-proposed"),
      ).toBe("release");
      expect(await page.textContent('[data-testid="bulk-plan-totals"]')).toMatch(/1 to complete.*1 to release.*0 left/);
      expect(await page.isDisabled('[data-testid="bulk-apply"]')).toBe(true); // no reason yet
      await page.fill('input[name="bulk-reason"]', "processor timeouts at 03:00");
      expect(await page.$eval('[data-testid="bulk-plan"]', (d) => d.matches("dialog:modal"))).toBe(true);
      await screenshot(page, "bulk-plan");
      // A plan is a dry run: nothing has changed yet.
      expect([await statusOf(taken), await statusOf(notTaken)]).toEqual(["in_progress", "in_progress"]);

      await page.click('[data-testid="bulk-apply"]');
      await page.waitForSelector('[data-testid="bulk-progress"][data-done="true"]');
      const results = await page
        .locator('[data-testid="bulk-plan-table"] tbody tr')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-result")));
      expect(results).toEqual(["ok", "ok"]);
      expect(await page.textContent('[data-testid="bulk-apply-totals"]')).toContain("1 completed");
      await screenshot(page, "bulk-applied");

      expect(await statusOf(taken)).toBe("completed");
      expect(await statusOf(notTaken)).toBeNull(); // released = deleted; the snapshot is in the audit log
      expect(await auditOf(taken)).toEqual([
        { action: "record.complete", actor: "operator@demo.test", reason: "bulk: processor timeouts at 03:00" },
      ]);
      expect((await auditOf(notTaken)).map((a) => a.action)).toEqual(["record.release"]);
      // The list behind the plan refreshed: only the untouched claim is left.
      await expect.poll(() => page.locator('[data-testid="stuck-table"] tbody tr').count()).toBe(1);
      await page.click('[data-testid="bulk-close"]');
      await expect.poll(() => page.locator('[data-testid="bulk-plan"]').count()).toBe(0);

      // And the operator sees both actions in the audit log page.
      await page.goto(`${baseUrl}/audit?tenant=${TENANT}`);
      await page.waitForSelector('[data-testid="audit-table"]');
      const logged = await page
        .locator('[data-testid="audit-table"] tbody tr[data-action]')
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-action")));
      expect(logged.sort()).toEqual(["record.complete", "record.release"]);
      expect(await page.textContent('[data-testid="audit-table"]')).toContain("bulk: processor timeouts at 03:00");
      await page.close();
    });

    it("an operator completes one claim from its record page with a reason; a viewer sees no action buttons", async () => {
      const key = await stuckClaim(25, "user_record_page");
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await signInAs(page, "operator@demo.test");
      if (!processorUrl) await findProcessor(page, key);
      await charge(key);
      await page.goto(`${baseUrl}/records/${key}`);
      await page.waitForSelector('[data-testid="resolve-panel"]');
      expect(await page.isDisabled('[data-testid="resolve-complete"]')).toBe(true); // nothing asked yet
      await page.click('button:has-text("Ask the processor")');
      await page.waitForSelector('[data-testid="processor-outcome"][data-outcome="taken"]');
      expect(await page.isDisabled('[data-testid="resolve-complete"]')).toBe(true); // no reason yet
      expect(await page.isDisabled('[data-testid="resolve-release"]')).toBe(true); // the processor says taken
      await page.fill('textarea[name="reason"]', "ticket 4411: the charge went through");
      await page.click('[data-testid="resolve-complete"]');
      // The page confirms from the audit entry it was sent to (?resolved=<id>).
      await page.waitForSelector('[data-testid="resolve-confirmation"][data-action="complete"]');
      await expect.poll(() => page.textContent('[data-testid="record-status"]')).toBe("completed");
      await screenshot(page, "record-completed");
      expect(await statusOf(key)).toBe("completed");
      expect(await auditOf(key)).toEqual([
        { action: "record.complete", actor: "operator@demo.test", reason: "ticket 4411: the charge went through" },
      ]);
      await page.close();

      const stuck = await stuckClaim(25, "user_viewer_sees");
      const viewer = await browser.newPage();
      await signInAs(viewer, "viewer@demo.test");
      await viewer.goto(`${baseUrl}/records/${stuck}`);
      await viewer.waitForSelector('[data-testid="record-ref"]');
      expect(await viewer.locator('[data-testid="resolve-panel"]').count()).toBe(0);
      expect(await viewer.locator('button:has-text("Ask the processor")').count()).toBe(1);
      await viewer.goto(`${baseUrl}/stuck?tenant=${TENANT}`);
      await viewer.waitForSelector('[data-testid="stuck-table"]');
      expect(await viewer.locator('[data-testid="plan-selected"]').count()).toBe(0);
      pageErrors.allow(/status of 403 .*\/api\/v1\/records\/[0-9a-f]{64}\/resolve\)$/); // the refusal below
      const refused = await viewer.evaluate(
        (k) =>
          fetch(`/api/v1/records/${k}/resolve`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ action: "release", reason: "viewer tries", expectedUpdatedAt: null }),
          }).then((r) => r.status),
        stuck,
      );
      expect(refused).toBe(403);
      expect(await statusOf(stuck)).toBe("in_progress");
      await viewer.close();
    });

    it("over real HTTP with a session: 20 concurrent resolves of one key give one 200 and nineteen 409s; a cross-site Origin is refused", async () => {
      // Intended: the nineteen losing resolves answer 409 and the malformed one 400; Chromium logs each.
      pageErrors.allow(/status of (409|400) .*\/api\/v1\/records\/[0-9a-f]{64}\/resolve\)$/);
      const key = await stuckClaim(40, "user_race");
      const page = await browser.newPage();
      await signInAs(page, "operator@demo.test");
      if (!processorUrl) await findProcessor(page, key);
      await charge(key);
      const statuses = await page.evaluate(async (k) => {
        const body = JSON.stringify({ action: "complete", reason: "race test", expectedUpdatedAt: null });
        const responses = await Promise.all(
          Array.from({ length: 20 }, () =>
            fetch(`/api/v1/records/${k}/resolve`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body,
            }),
          ),
        );
        return Promise.all(
          responses.map(async (r) => ({
            status: r.status,
            body: (await r.json()) as { error?: { code: string; current?: { status: string } } },
          })),
        );
      }, key);
      expect(statuses.map((s) => s.status).sort()).toEqual([200, ...Array<number>(19).fill(409)]);
      expect(statuses.filter((s) => s.status === 409).every((s) => s.body.error?.code === "conflict")).toBe(true);
      expect((await auditOf(key)).map((a) => a.action)).toEqual(["record.complete"]);

      const other = await stuckClaim(40, "user_csrf");
      const crossSite = await page.context().request.post(`${baseUrl}/api/v1/records/${other}/resolve`, {
        headers: { origin: "http://evil.example", "content-type": "application/json" },
        data: { action: "release", reason: "forged", expectedUpdatedAt: null },
      });
      expect(crossSite.status()).toBe(403);
      expect(await crossSite.json()).toMatchObject({ error: { code: "cross_origin" } });
      const malformed = await page.evaluate(
        (k) =>
          fetch(`/api/v1/records/${k}/resolve`, { method: "POST", body: "{oops" }).then(async (r) => ({
            status: r.status,
            body: await r.json(),
          })),
        other,
      );
      expect(malformed).toEqual({
        status: 400,
        body: { error: { code: "bad_json", message: "The request body is not valid JSON." } },
      });
      expect(await statusOf(other)).toBe("in_progress");
      await page.close();
    });
  },
);
