import { mkdirSync } from "node:fs";
import path from "node:path";
import { UserError } from "@/lib/errors/user-error";
import { serveEmbedded } from "@/lib/db/embedded-socket-server";
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
export type EmbeddedDatabase = { url: string; port: number; stop(): Promise<void> };

const DEFAULT_PORT = 54329;
const MAX_CONNECTIONS = 16;

export async function startEmbeddedDatabase(
  options: { dataDir?: string; port?: number; inMemory?: boolean } = {},
): Promise<EmbeddedDatabase> {
  const dataDir = options.dataDir ?? embeddedDataDir();
  const running = options.inMemory ? null : findRunningEmbeddedDatabase(dataDir);
  if (running) {
    throw new UserError(`The embedded database in ${dataDir} is already served at ${running}; connect to it instead.`, 1);
  }
  const { PGlite } = await import("@electric-sql/pglite");

  let pglite;
  if (options.inMemory) {
    pglite = await PGlite.create();
  } else {
    mkdirSync(dataDir, { recursive: true });
    pglite = await PGlite.create(path.join(dataDir, "pglite"));
  }
  const wanted = options.port ?? Number(process.env.IDEM_EMBEDDED_PORT ?? DEFAULT_PORT);
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

  let stopped = false;
  return {
    url,
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await pglite.close();
      if (!options.inMemory) removeEmbeddedRecord(dataDir);
    },
  };
}
