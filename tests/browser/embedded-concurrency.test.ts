import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { createPrismaClient } from "@/lib/db/prisma";
import { freePort } from "../helpers/free-port";
import { embeddedDatabaseUrl, startConsoleProcess, type ConsoleProcess } from "../helpers/console-process";
import { systemAdmin } from "../helpers/system-admin";

const ROWS = 120;
const REQUESTS = 300;
const admin = systemAdmin("embedded-load", { id: "test" });
const keyOf = (i: number) => createHash("sha256").update(`embedded-load|${i}`).digest("hex");

// The console on its embedded database (no DATABASE_URL), as `npm run demo` serves it: 300 mixed API
// requests at once, reads and audited writes, and not one answer of 500 or more.
describe("the console on the embedded database under 300 concurrent API requests", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "idem-embedded-load-"));
  let consoleProcess: ConsoleProcess;
  let token: string;

  beforeAll(async () => {
    consoleProcess = await startConsoleProcess({
      port: await freePort(),
      env: { DATABASE_URL: undefined, IDEM_DATA_DIR: dataDir, IDEM_EMBEDDED_PORT: "0", IDEM_DEMO_HISTORY_HOURS: "0" },
    });
    const url = embeddedDatabaseUrl(dataDir);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (let i = 0; i < ROWS; i++) {
        const completed = i % 3 !== 0;
        await client.query(
          `INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at)
           VALUES ($1, $2, 'cust', 'charge_card', $3, $4, now() - make_interval(mins => $5), CASE WHEN $3 = 'completed' THEN now() END)`,
          [
            keyOf(i),
            i % 2 ? "acme" : "globex",
            completed ? "completed" : "in_progress",
            completed ? { charge_id: `ch_${i}` } : null,
            10 + i,
          ],
        );
      }
    } finally {
      await client.end();
    }
    const db = createPrismaClient(url, 1);
    try {
      ({ token } = await createToken(db, admin, { name: "embedded-load", role: "admin" }));
    } finally {
      await db.$disconnect();
    }
  }, 700_000);

  afterAll(async () => {
    await consoleProcess?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers every one below 500", async () => {
    const requests: (() => Promise<Response>)[] = [];
    const get = (p: string) => () =>
      fetch(`${consoleProcess.baseUrl}${p}`, { headers: { authorization: `Bearer ${token}` } });
    const post = (p: string, body: unknown) => () =>
      fetch(`${consoleProcess.baseUrl}${p}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    for (let i = 0; i < REQUESTS; i++) {
      const key = keyOf(i % ROWS);
      const mix = [
        get("/api/v1/records?limit=50"),
        get("/api/v1/records?status=in_progress&tenant=acme"),
        get(`/api/v1/lookup?q=${encodeURIComponent(`failed: ref ${key.slice(0, 12)}`)}`),
        get(`/api/v1/records/${key}`),
        get("/api/v1/metrics?window=1h"),
        get("/api/v1/audit"),
        get("/api/v1/me"),
        post(`/api/v1/records/${keyOf(1)}/reveal`, { reason: `load test reveal ${i}` }),
        get("/api/v1/tools/audit"),
        get("/api/v1/records/export?format=csv"),
      ];
      requests.push(mix[i % mix.length]!);
    }
    const answers = await Promise.all(
      requests.map(async (send) => {
        const started = performance.now();
        const response = await send();
        const text = await response.text();
        return { status: response.status, url: response.url, text, ms: performance.now() - started };
      }),
    );
    // The slowest answer per route: what to read first when one of them crosses a limit.
    const slowest = new Map<string, number>();
    for (const a of answers) {
      const route = new URL(a.url).pathname.replace(/[0-9a-f]{64}/, ":key");
      slowest.set(route, Math.max(slowest.get(route) ?? 0, Math.round(a.ms)));
    }
    const statuses: Record<number, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    const failures = answers.filter((a) => a.status >= 500).map((a) => `${a.status} ${a.url}: ${a.text.slice(0, 160)}`);
    console.log(
      `embedded database, ${REQUESTS} concurrent API requests: statuses ${JSON.stringify(statuses)}; slowest (ms) ${JSON.stringify(Object.fromEntries(slowest))}`,
    );
    if (failures.length > 0)
      console.log(
        consoleProcess
          .output()
          .split("\n")
          .filter((l) => /\[api\]|Error|error/.test(l))
          .slice(0, 30)
          .join("\n"),
      );
    expect(failures.slice(0, 5)).toEqual([]);
    expect(answers).toHaveLength(REQUESTS);
    expect(statuses[200]).toBe(REQUESTS);
  }, 300_000);
});
