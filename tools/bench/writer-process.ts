/**
 * The writer of `idem bench-writers`, in a process of its own so it can be pinned to PostgreSQL's
 * core while the console and its load run on the other: the guard's claim → complete (the same
 * withIdempotency an MCP tool server wraps its handler in) on fresh keys, at a fixed rate. Driven
 * by its parent over IPC (tools/bench/writer-child.ts); one message in, one answer out.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { withIdempotency } from "idem-guard";
import { WRITER_APPLICATION_NAME, WRITER_CONNECTIONS, type WriterAnswer, type WriterRequest } from "./writer-protocol";
import { runOpenLoop } from "./writer-schedule";

// A distinct charge id per call, as a processor hands out: what the receipt search index really stores.
const receipt = () => ({
  id: `ch_${randomBytes(12).toString("hex")}`,
  status: "succeeded",
  amount_cents: 24000,
  card_last4: "0071",
});

async function main(): Promise<void> {
  const url = process.argv[2];
  if (!url) throw new Error("usage: writer-process <database url>");
  const pool = new pg.Pool({
    connectionString: url,
    max: WRITER_CONNECTIONS,
    application_name: WRITER_APPLICATION_NAME,
    idleTimeoutMillis: 0, // a connection opened mid-phase would put a backend's fork into the figures
  });
  const clients = await Promise.all(Array.from({ length: WRITER_CONNECTIONS }, () => pool.connect()));
  const backendPids = await Promise.all(
    clients.map(async (c) => (await c.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid),
  );
  // Only the writer's sessions time their I/O, so the database's read and WAL times are theirs
  // (tools/bench/phase-counters.ts). Superuser settings: refused, the figures say "not timed".
  const timed = await Promise.all(
    clients.map((c) =>
      c.query("SET track_io_timing = on; SET track_wal_io_timing = on").then(
        () => true,
        () => false,
      ),
    ),
  );
  clients.forEach((c) => c.release());
  const subject = `writer-${randomBytes(4).toString("hex")}`;
  const guard = withIdempotency(
    { db: pool, tool: "charge_card", statusTool: "get_charge_status", recordEvents: true },
    async () => receipt(),
  );
  let calls = 0;
  send({ type: "ready", backendPids, ioTimed: timed.every(Boolean) });
  process.on("message", (message: WriterRequest) => {
    if (message.type === "stop") {
      void pool.end().finally(() => process.exit(0));
      return;
    }
    runOpenLoop(
      () => guard({ tenant: "acme", subject, argumentsJson: `{"call":${(calls += 1)}}` }),
      message.options,
    ).then(
      (samples) => send({ type: "done", samples }),
      (error: unknown) => send({ type: "failed", message: error instanceof Error ? error.message : String(error) }),
    );
  });
}

function send(answer: WriterAnswer): void {
  process.send?.(answer);
}

main().catch((error: unknown) => {
  send({ type: "failed", message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
