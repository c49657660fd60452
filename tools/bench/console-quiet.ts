import type pg from "pg";
import { isConsoleApplicationName } from "@/lib/db/application-name";

/**
 * Waits until none of the console's backends has been busy (active, or inside a transaction) for
 * `quietMs`: the production server's first background round, a catch-up of the roll-up and the
 * duplicate scan, starts with the server and ran beside the first case's timed SQL side (its p95
 * 0.6 → 5 ms; docs/bench.md, "Issue #31, twelfth pass"). Call it when no request of the bench is in
 * flight. Gives up after `maxMs` and says so, rather than never measuring.
 */
export async function waitForConsoleQuiet(
  client: pg.Client,
  options: { quietMs?: number; pollMs?: number; maxMs?: number } = {},
): Promise<{ waitedMs: number; quiet: boolean }> {
  const { quietMs = 1_000, pollMs = 100, maxMs = 300_000 } = options;
  const started = Date.now();
  let quietSince = started;
  for (;;) {
    // Which names are the console's is lib/db/application-name.ts's rule, as everywhere else in the bench.
    const { rows } = await client.query<{ name: string }>(
      `SELECT application_name AS name FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND state IS NOT NULL AND state <> 'idle'`,
    );
    const now = Date.now();
    if (rows.some((r) => isConsoleApplicationName(r.name))) quietSince = now;
    else if (now - quietSince >= quietMs) return { waitedMs: now - started, quiet: true };
    if (now - started >= maxMs) return { waitedMs: now - started, quiet: false };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
