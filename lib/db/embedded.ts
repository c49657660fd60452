import "server-only";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { startPeriodicAnalyze } from "@/lib/db/analyze-tables";
import { UserError } from "@/lib/errors/user-error";
import { serveEmbedded } from "@/lib/db/embedded-socket-server";
import { env } from "@/lib/config/environment";
import {
  embeddedDataDir,
  findRunningEmbeddedDatabase,
  removeEmbeddedRecord,
  writeEmbeddedRecord,
} from "@/lib/db/embedded-record";

/**
 * The embedded default: PGlite on disk, served over the PostgreSQL wire protocol by
 * pglite-socket so the console, the CLI and the demo traffic share one database through the
 * same `pg` code path as production. PGlite is one process: whoever starts it serves it,
 * and records where in `<dataDir>/embedded.json` so the others connect instead of opening it.
 */
export type EmbeddedDatabase = {
  url: string;
  port: number;
  /** ANALYZE every table changed enough since its last ANALYZE, now (the server also does it every `analyzeEveryMs`). */
  analyze(): Promise<string[]>;
  stop(): Promise<void>;
};

const DEFAULT_PORT = 54329;
/** PGlite has no autovacuum: while it serves, stale planner statistics are renewed this often (lib/db/analyze-tables.ts). */
const ANALYZE_EVERY_MS = 30_000;
const MAX_CONNECTIONS = 16;

export async function startEmbeddedDatabase(
  options: { dataDir?: string; port?: number; inMemory?: boolean; analyzeEveryMs?: number } = {},
): Promise<EmbeddedDatabase> {
  const dataDir = options.dataDir ?? embeddedDataDir();
  const running = options.inMemory ? null : findRunningEmbeddedDatabase(dataDir);
  if (running) {
    throw new UserError(
      `The embedded database in ${dataDir} is already served at ${running}; connect to it instead.`,
      1,
    );
  }
  const { PGlite } = await import("@electric-sql/pglite");

  let pglite;
  if (options.inMemory) {
    pglite = await PGlite.create();
  } else {
    mkdirSync(dataDir, { recursive: true });
    pglite = await PGlite.create(path.join(dataDir, "pglite"));
  }
  const wanted = options.port ?? env().IDEM_EMBEDDED_PORT ?? DEFAULT_PORT;
  const listen = (port: number) => serveEmbedded(pglite, { host: "127.0.0.1", port, maxConnections: MAX_CONNECTIONS });
  const server = await listen(wanted).catch(async (error: unknown) => {
    if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
    return listen(0); // the default port is busy: any free one will do
  });
  const port = server.port;
  const url = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
  if (!options.inMemory) {
    writeEmbeddedRecord(dataDir, { pid: process.pid, url, port, startedAt: new Date().toISOString() });
  }

  const analyzer = startPeriodicAnalyze(url, options.analyzeEveryMs ?? ANALYZE_EVERY_MS);
  let stopped = false;
  return {
    url,
    port,
    analyze: () => analyzer.runNow(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await analyzer.stop();
      await server.stop();
      await pglite.close();
      if (!options.inMemory) removeEmbeddedRecord(dataDir);
    },
  };
}
