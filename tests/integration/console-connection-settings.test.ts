import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Db } from "@/lib/db/prisma";

// Every connection of the console's two pools carries its own statement_timeout, lock_timeout,
// application_name and parallel workers (set in the startup packet, lib/db/prisma.ts): read back through
// the console's own clients (lib/db/client.ts), on as many connections at once as each pool holds.
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-connection-settings-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
// Values no PostgreSQL default has, so a setting that is not applied cannot pass by coincidence.
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({
    database: { statementTimeout: "7s", lockTimeout: "3s", exportStatementTimeout: "90s", parallelWorkers: 3 },
  }),
);

type Settings = {
  pid: number;
  statement_timeout: string;
  lock_timeout: string;
  application_name: string;
  parallel_workers: string;
};

/** The settings of `connections` connections at once: each transaction holds its connection until all have read. */
async function settingsOfEveryConnection(db: Db, connections: number): Promise<Settings[]> {
  let arrived = 0;
  let allArrived: () => void = () => {};
  const together = new Promise<void>((resolve) => (allArrived = resolve));
  return Promise.all(
    Array.from({ length: connections }, () =>
      db.$transaction(async (tx) => {
        const [row] = await tx.$queryRaw<Settings[]>`
          SELECT pg_backend_pid() AS pid, current_setting('statement_timeout') AS statement_timeout,
                 current_setting('lock_timeout') AS lock_timeout, current_setting('application_name') AS application_name,
                 current_setting('max_parallel_workers_per_gather') AS parallel_workers`;
        if ((arrived += 1) === connections) allArrived();
        await together;
        return row!;
      }),
    ),
  );
}

// The embedded database's socket server (PGlite) ignores a startup packet's settings: there the console's
// connections show lock_timeout 0 and no application_name (measured), so this holds for PostgreSQL only.
describe.skipIf(inject("databaseKind") !== "postgres")("the console's database connections", () => {
  afterAll(async () => {
    const { getDb, getExportDb } = await import("@/lib/db/client");
    await Promise.all([getDb().$disconnect(), getExportDb().$disconnect()]);
  });

  it("pages and API calls: every connection has the short statement limit, the lock limit, the console's name and its parallel workers", async () => {
    const { getDb } = await import("@/lib/db/client");
    const settings = await settingsOfEveryConnection(getDb(), 4);
    expect(new Set(settings.map((s) => s.pid)).size).toBe(4);
    for (const s of settings)
      expect(s).toMatchObject({
        statement_timeout: "7s",
        lock_timeout: "3s",
        application_name: "idem-console",
        parallel_workers: "3",
      });
    const [shown] = await getDb().$queryRaw<{ lock_timeout: string }[]>`SHOW lock_timeout`;
    expect(shown?.lock_timeout).toBe("3s");
  });

  it("exports: every connection has the export statement limit, the same lock limit and the export pool's name", async () => {
    const { getExportDb } = await import("@/lib/db/client");
    const settings = await settingsOfEveryConnection(getExportDb(), 2);
    expect(new Set(settings.map((s) => s.pid)).size).toBe(2);
    for (const s of settings)
      expect(s).toMatchObject({
        statement_timeout: "90s",
        lock_timeout: "3s",
        application_name: "idem-console:export",
        parallel_workers: "3",
      });
    const [shown] = await getExportDb().$queryRaw<{ statement_timeout: string }[]>`SHOW statement_timeout`;
    expect(shown?.statement_timeout).toBe("90s");
  });
});
