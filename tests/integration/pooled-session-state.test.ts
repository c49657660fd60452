import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { createPrismaClient } from "@/lib/db/prisma";
import { migrate } from "@/lib/db/migrate";
import { poolerLimitsProblem } from "@/lib/db/pooler";
import { consoleTimeouts } from "@/lib/db/timeouts";
import { DEFAULT_DATABASE_TIMEOUTS } from "@/lib/config/schema";
import { routeHandler, type ApiRoutePath } from "../helpers/api-routes";
import { startPgBouncer } from "../helpers/pgbouncer";
import { systemAdmin } from "../helpers/system-admin";

// Runs in the pgbouncer project (vitest.config.ts): the run's role carries the console's limits there.
// Here PgBouncer pools ONE server connection, so every transaction the console runs shares it: state
// any request leaves behind (a session SET, a session advisory lock, LISTEN) is there to be found.
const primary = inject("primaryDatabaseUrl");
const bouncer = await startPgBouncer(primary, { poolSize: 1 });
process.env.DATABASE_URL = bouncer.urlFor(primary);
const processor = await startDemoProcessor();
process.env.IDEM_CONFIG = path.join(mkdtempSync(path.join(tmpdir(), "idem-pooled-")), "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({ tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } } }),
);
const { getDb } = await import("@/lib/db/client");

const run = randomBytes(3).toString("hex");
const TENANT = `pooled-${run}`;
const system = systemAdmin("pooled");

describe("the console through PgBouncer with one server connection", () => {
  const direct = createPrismaClient(primary, 2);
  let token = "";
  const keys: string[] = [];

  beforeAll(async () => {
    token = (await createToken(direct, system, { name: `pooled-${run}`, role: "admin" })).token;
    for (let n = 0; n < 3; n += 1) {
      const key = createHash("sha256").update(`pooled|${run}|${n}`).digest("hex");
      keys.push(key);
      await direct.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${key}, ${TENANT}, 'charge_card', 'in_progress', now() - interval '1 hour')`;
    }
  });
  afterAll(async () => {
    await direct.$disconnect();
    await getDb().$disconnect();
    await processor.stop();
    await bouncer.stop();
  });

  const call = async (
    route: ApiRoutePath,
    url: string,
    init: { method?: "GET" | "POST"; body?: unknown; params?: object } = {},
  ) => {
    const handler = await routeHandler(route, init.method ?? "GET");
    const request = new Request(`http://console.test/api/v1/${url}`, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const response = await handler(request, { params: Promise.resolve((init.params ?? {}) as Record<string, string>) });
    expect(response.status, `${url}: ${await response.clone().text()}`).toBe(200);
    return response;
  };

  it("lists with facets, metrics (the roll-ups' locks), lookup, detail, resolve and reconcile leave no state behind", async () => {
    await call("records", `records?tenant=${TENANT}&status=in_progress`);
    await call("metrics", "metrics?window=1h");
    await call("metrics", `metrics?window=24h&tenant=${TENANT}`);
    await call("lookup", `lookup?q=${encodeURIComponent(`ref ${keys[0]!.slice(0, 12)}`)}`);
    await call("records/[key]", `records/${keys[0]}`, { params: { key: keys[0] } });
    await call("records/[key]/resolve", `records/${keys[0]}/resolve`, {
      method: "POST",
      params: { key: keys[0] },
      body: {
        action: "release",
        reason: "never charged: the processor has no such reference",
        expectedUpdatedAt: null,
      },
    });
    await call("reconcile", "reconcile", { method: "POST", body: { filter: { tenant: TENANT }, dryRun: false } });
    await call("audit", "audit");
    await call("tools/audit", "tools/audit?window=24h");

    // The one server connection, as the next client would get it.
    const next = new pg.Client({ connectionString: bouncer.urlFor(primary) });
    await next.connect();
    try {
      // application_name is one of the parameters PgBouncer itself tracks per client and sets on the server
      // connection it hands out (the console names its connections idem-console): the pooler's, not a leak.
      const { rows: leftovers } = await next.query<{ name: string; setting: string }>(
        "SELECT name, setting FROM pg_settings WHERE source = 'session' AND name <> 'application_name' ORDER BY name",
      );
      expect(leftovers, "settings a session SET left on the pooled connection").toEqual([]);
      const { rows: channels } = await next.query("SELECT pg_listening_channels()");
      expect(channels, "channels a LISTEN left on the pooled connection").toEqual([]);
      const { rows: prepared } = await next.query("SELECT name FROM pg_prepared_statements");
      expect(prepared, "named prepared statements left on the pooled connection").toEqual([]);
    } finally {
      await next.end();
    }
    const database = new URL(primary).pathname.slice(1);
    const { rows: locks } = await direct.$queryRaw<{ objid: number; pid: number }[]>`
      SELECT l.objid, l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
       WHERE l.locktype = 'advisory' AND d.datname = ${database}`.then((rows) => ({ rows }));
    expect(locks, "advisory locks held after every transaction ended").toEqual([]);
  });

  it("the console's statements run under the role's limits, and a slow one is cut off by the server", async () => {
    const [limits] = await getDb().$queryRaw<{ statement: string; lock: string }[]>`
      SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock`;
    expect(limits).toEqual({ statement: "5s", lock: "2s" });
    const slow = await getDb().$queryRaw`SELECT pg_sleep(8)`
      .then(() => "finished")
      .catch((error: unknown) => String((error as Error).message));
    expect(slow).toMatch(/statement timeout/);
  });

  it("the launcher's check: the run's database carries the limits; a database without them is refused with the statement to run", async () => {
    const timeouts = consoleTimeouts("interactive", DEFAULT_DATABASE_TIMEOUTS, {});
    expect(await poolerLimitsProblem(bouncer.urlFor(primary), timeouts)).toBeNull();
    const bare = new URL(primary);
    bare.pathname = "/postgres"; // the server's own database: no role defaults there
    expect(await poolerLimitsProblem(bouncer.urlFor(bare.toString()), timeouts)).toMatch(
      /statement_timeout 0 ms and lock_timeout 0 ms .*ALTER ROLE "postgres" IN DATABASE "postgres" SET statement_timeout = '5000ms'/,
    );
    // Migrations' session lock would outlive its transaction on a pooled connection: refused before connecting.
    await expect(migrate(bouncer.urlFor(primary))).rejects.toThrow(/set DATABASE_MIGRATE_URL to a direct connection/);
  });
});
