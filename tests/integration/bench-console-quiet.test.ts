import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { waitForConsoleQuiet } from "@/tools/bench/console-quiet";

// The bench times its first case only once the console's backends are quiet: the server's first
// background round (a catch-up) ran beside that case's SQL side and made its p95.
describe("the bench's wait for the console's backends to be quiet", () => {
  const url = inject("databaseUrl");
  const client = new pg.Client({ connectionString: url });
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  const session = async (applicationName: string) => {
    const other = new pg.Client({ connectionString: url, application_name: applicationName });
    await other.connect();
    return other;
  };

  it("waits while a console backend runs a statement, and not for anyone else's", async () => {
    const consoleBackend = await session("idem-console");
    const exportBackend = await session("idem-console:export");
    const writer = await session("a-writer");
    try {
      // Idle console sessions and a writer's long statement: quiet at once.
      const writerBusy = writer.query("SELECT pg_sleep(3)");
      const quietNow = await waitForConsoleQuiet(client, { quietMs: 200 });
      expect(quietNow.quiet).toBe(true);
      expect(quietNow.waitedMs).toBeLessThan(1_500);

      const busy = consoleBackend.query("SELECT pg_sleep(1.2)");
      const exportBusy = exportBackend.query("SELECT pg_sleep(1.6)");
      await new Promise((resolve) => setTimeout(resolve, 100));
      const afterBusy = await waitForConsoleQuiet(client, { quietMs: 200 });
      expect(afterBusy.quiet).toBe(true);
      expect(afterBusy.waitedMs).toBeGreaterThanOrEqual(1_500 - 100);
      await Promise.all([busy, exportBusy, writerBusy]);

      // Inside a transaction counts as busy (it may hold locks or a snapshot); a cap ends the wait, said so.
      await consoleBackend.query("BEGIN");
      const capped = await waitForConsoleQuiet(client, { quietMs: 200, maxMs: 600 });
      expect(capped).toMatchObject({ quiet: false });
      expect(capped.waitedMs).toBeGreaterThanOrEqual(600);
      await consoleBackend.query("ROLLBACK");
    } finally {
      await Promise.all([consoleBackend.end(), exportBackend.end(), writer.end()]);
    }
  });
});
