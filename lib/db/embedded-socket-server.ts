import "server-only";
import { createServer, type Server, type Socket } from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { ProtocolUnitQueue } from "@/lib/db/protocol-unit-queue";

export type EmbeddedSocketServer = { port: number; stop(): Promise<void> };

/**
 * Serves one PGlite over the PostgreSQL wire protocol to many connections, each framed by
 * pglite-socket's PGLiteSocketHandler, all behind one ProtocolUnitQueue (pglite-socket's own
 * server shares a queue that interleaves connections inside a protocol unit).
 */
export async function serveEmbedded(
  db: PGlite,
  options: { host: string; port: number; maxConnections: number },
): Promise<EmbeddedSocketServer> {
  const { PGLiteSocketHandler } = await import("@electric-sql/pglite-socket");
  await db.waitReady;
  const queue = new ProtocolUnitQueue(db);
  const handlers = new Set<{ detach(close?: boolean): Promise<unknown> }>();

  const server: Server = createServer((socket: Socket) => {
    if (handlers.size >= options.maxConnections) {
      socket.end("Too many connections\n");
      return;
    }
    // The handler only calls the four methods ProtocolUnitQueue implements.
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
    handlers.add(handler);
    const forget = () => handlers.delete(handler);
    handler.addEventListener("close", forget);
    handler.addEventListener("error", forget);
    handler.attach(socket).catch(() => {
      forget();
      socket.destroy();
    });
  });
  server.maxConnections = options.maxConnections;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  return {
    port,
    async stop() {
      for (const handler of handlers) await handler.detach(true);
      handlers.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
