import { copyFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { browserMissing, launchChromium, screenshot } from "../helpers/browser";
import { startConsoleProcess, type ConsoleProcess } from "../helpers/console-process";
import { freePort } from "../helpers/free-port";
import { startTestReplica, waitForReplay, whileReplayPaused } from "../helpers/replica";
import { signInAs } from "../helpers/sign-in";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { seriousViolations } from "../helpers/axe";

// A console (the demo launcher, its writers running) whose reads go to a real streaming replica
// of its own database: with replay paused the replica falls behind, and the records page says by
// how much in its one status banner; resumed and caught up, the banner goes.
const WARNING = "1s";

describe.skipIf(browserMissing)("the replica lag banner", () => {
  let database: TestDatabase;
  let replicaUrl = "";
  let consoleProcess: ConsoleProcess;
  let browser: Browser;
  let pool: pg.Pool;

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.kind === "embedded") throw new Error("the replica test needs PostgreSQL (pg_basebackup)");
    replicaUrl = startTestReplica(database.url).urlOf(database.url);
    await waitForReplay(database.url, replicaUrl);
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
    consoleProcess = await startConsoleProcess({
      port: await freePort(),
      env: {
        DATABASE_URL: database.url,
        DATABASE_READ_URL: replicaUrl,
        IDEM_DATA_DIR: mkdtempSync(path.join(tmpdir(), "idem-replica-lag-")),
        IDEM_DEMO_HISTORY_HOURS: "0",
        IDEM_DB_REPLICA_LAG_WARNING: WARNING,
      },
    });
    browser = await launchChromium();
  }, 900_000);
  afterAll(async () => {
    await browser?.close();
    await consoleProcess?.stop();
    await pool?.end();
    await database?.drop();
  });

  it("names the lag on the records page while the replica is behind, at 1440 and 390 px, axe clean, and drops it once caught up", async () => {
    const context = await browser.newContext();
    const page = await signInAs(await context.newPage(), "viewer@demo.test", "/records", consoleProcess.baseUrl);
    await waitForReplay(database.url, replicaUrl);
    await page.reload();
    await expect.poll(() => page.getByTestId("replica-lag").count()).toBe(0);

    await whileReplayPaused(database.url, replicaUrl, async () => {
      // A write the replica cannot replay (the demo's writers add more), then past the warning.
      await pool.query(
        "INSERT INTO idempotency (key, tenant, tool, status) VALUES (md5(random()::text) || md5(random()::text), 'replica-lag', 'charge_card', 'in_progress')",
      );
      await new Promise((r) => setTimeout(r, 1_600));
      await page.reload();
      const banner = page.getByRole("status").filter({ hasText: "behind the primary" });
      await expect.poll(() => banner.count()).toBe(1);
      expect(await banner.textContent()).toMatch(/This page may be \d+ s out of date\..*\d+ s behind the primary/);

      expect(await seriousViolations(page)).toEqual([]);
      mkdirSync("docs/screenshots/mobile", { recursive: true });
      await page.setViewportSize({ width: 1440, height: 900 });
      copyFileSync(await screenshot(page, "replica-lag"), "docs/screenshots/replica-lag.png");
      await page.setViewportSize({ width: 390, height: 844 });
      copyFileSync(await screenshot(page, "mobile-replica-lag"), "docs/screenshots/mobile/replica-lag.png");
      await page.setViewportSize({ width: 1440, height: 900 });
    });

    await waitForReplay(database.url, replicaUrl);
    await new Promise((r) => setTimeout(r, 1_100)); // the console measures the lag at most once a second
    await page.reload();
    expect(await page.getByTestId("replica-lag").count()).toBe(0);
    await context.close();
  });
});
