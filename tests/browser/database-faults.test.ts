import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { createPrismaClient } from "@/lib/db/prisma";
import { browserMissing, launchChromium } from "../helpers/browser";
import { startConsoleProcess, type ConsoleProcess } from "../helpers/console-process";
import { freePort } from "../helpers/free-port";
import { signInAs } from "../helpers/sign-in";
import { startTcpFaultProxy, type TcpFaultProxy } from "../helpers/tcp-fault-proxy";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { systemAdmin } from "../helpers/system-admin";

// The console's limits for this run (IDEM_DB_*): short, so a black-holed database is noticed quickly.
const CONNECT_MS = 5_000; // the default: it also bounds the wait for a pooled connection, long on a busy box
const STATEMENT_MS = 3_000;
const CLIENT_MARGIN_MS = 2_000; // lib/db/timeouts.ts: pg's query_timeout is statement + this
// The deadline for any answer: one connect wait and one stalled statement, plus time for Next to render on a busy box.
const DEADLINE_MS = CONNECT_MS + STATEMENT_MS + CLIENT_MARGIN_MS + 5_000;
const RATE_PER_SECOND = 20;
// At most this many requests open at once: on a box too busy to serve 20/s the rate falls (and is printed) instead of a queue growing without end.
const MAX_IN_FLIGHT = 12;

// The lookup reads on the client's pg pool, not through Prisma (lib/db/raw-query.ts): its faults must answer the same.
const API_PATHS = [
  "/api/v1/records",
  "/api/v1/records?status=in_progress",
  "/api/v1/metrics",
  "/api/v1/audit",
  "/api/v1/lookup?q=3f9a1c2b7d4e",
];
const PAGE_PATHS = ["/", "/records", "/stuck", "/audit", "/lookup?q=3f9a1c2b7d4e"];

type Answer = {
  phase: string;
  kind: "api" | "page";
  path: string;
  status: number | "network-error";
  finalPath: string;
  code?: string;
  retryAfter: string | null;
  namesDatabase: boolean;
  ms: number;
  startedAt: number;
};

const admin = systemAdmin("db-faults", { id: "test" });

describe.skipIf(browserMissing)(
  "the console when its database refuses, hangs, restarts or drops its connections",
  () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "idem-db-faults-"));
    let database: TestDatabase;
    let proxy: TcpFaultProxy;
    let consoleProcess: ConsoleProcess;
    let token: string;
    let cookie: string;

    beforeAll(async () => {
      database = await createTestDatabase();
      if (database.kind !== "postgres") throw new Error("the fault test needs PostgreSQL (DATABASE_URL)");
      const direct = new URL(database.url);
      proxy = await startTcpFaultProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const proxied = new URL(database.url);
      proxied.hostname = "127.0.0.1";
      proxied.port = String(proxy.port);
      consoleProcess = await startConsoleProcess({
        port: await freePort(),
        env: {
          DATABASE_URL: proxied.toString(),
          IDEM_DATA_DIR: dataDir,
          IDEM_DEMO_HISTORY_HOURS: "0",
          IDEM_DB_STATEMENT_TIMEOUT: `${STATEMENT_MS}ms`,
          IDEM_DB_LOCK_TIMEOUT: "1s",
        },
      });
      const db = createPrismaClient(database.url, 1);
      try {
        ({ token } = await createToken(db, admin, { name: "db-faults", role: "admin" }));
      } finally {
        await db.$disconnect();
      }
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        await signInAs(await context.newPage(), "admin@demo.test", "/", consoleProcess.baseUrl);
        cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
      } finally {
        await browser.close();
      }
    }, 700_000);

    afterAll(async () => {
      // The server's side of the run, for reading after a failure.
      if (consoleProcess) {
        mkdirSync("test-results", { recursive: true });
        writeFileSync("test-results/database-faults-console.log", consoleProcess.output());
      }
      await consoleProcess?.stop();
      await proxy?.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("answers 503 database_unavailable with Retry-After (API) and a 503 page naming the database, never a 500, within the deadline, and recovers", async () => {
      // Warm the server first (the first render of each page is slow): a cold page is not a database fault.
      for (let round = 0; round < 2; round++) {
        for (const target of API_PATHS)
          await (
            await fetch(`${consoleProcess.baseUrl}${target}`, { headers: { authorization: `Bearer ${token}` } })
          ).text();
        for (const target of PAGE_PATHS)
          await (await fetch(`${consoleProcess.baseUrl}${target}`, { headers: { cookie } })).text();
      }
      const answers: Answer[] = [];
      const inFlight = new Set<Promise<void>>();
      let phase = "pass";
      let n = 0;

      const ask = async (kind: "api" | "page", target: string, phaseAtStart: string) => {
        const startedAt = Date.now();
        const headers: Record<string, string> = kind === "api" ? { authorization: `Bearer ${token}` } : { cookie };
        try {
          const response = await fetch(`${consoleProcess.baseUrl}${target}`, {
            headers,
            signal: AbortSignal.timeout(DEADLINE_MS * 3),
          });
          const body = await response.text();
          let code: string | undefined;
          if (kind === "api" && response.status >= 400)
            code = (JSON.parse(body) as { error?: { code?: string } }).error?.code;
          answers.push({
            phase: phaseAtStart,
            kind,
            path: target,
            status: response.status,
            finalPath: new URL(response.url).pathname,
            code,
            retryAfter: response.headers.get("retry-after"),
            namesDatabase: /database is unavailable/.test(body),
            ms: Date.now() - startedAt,
            startedAt,
          });
        } catch {
          answers.push({
            phase: phaseAtStart,
            kind,
            path: target,
            status: "network-error",
            finalPath: "",
            retryAfter: null,
            namesDatabase: false,
            ms: Date.now() - startedAt,
            startedAt,
          });
        }
      };
      let skipped = 0;
      const ticker = setInterval(() => {
        if (inFlight.size >= MAX_IN_FLIGHT) {
          skipped += 1;
          return;
        }
        const kind = n % 2 === 0 ? "api" : "page";
        const paths = kind === "api" ? API_PATHS : PAGE_PATHS;
        const target = paths[Math.floor(n / 2) % paths.length]!;
        n += 1;
        const request = ask(kind, target, phase);
        inFlight.add(request);
        void request.finally(() => inFlight.delete(request));
      }, 1_000 / RATE_PER_SECOND);

      const phaseEnds: Record<string, number> = {};
      const started = Date.now();
      const run = async (name: string, ms: number, fault?: () => Promise<void>) => {
        phase = name;
        await fault?.();
        await new Promise((r) => setTimeout(r, ms));
        phaseEnds[name] = Date.now();
      };
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        await run("pass 1", 4_000);
        await run("refuse", 6_000, () => proxy.refuse());
        await run("pass 2", 8_000, () => proxy.pass());
        // Longer than one stalled statement (5 s) past the console's own lag: a slow box that starts a page's query
        // seconds late must still see it stall inside the phase, not resume 200 when the hole closes.
        await run("black-hole", 16_000, () => proxy.blackhole());
        // The hole's stalled requests are answered early in this pass: a slow box needs the longer pass to be
        // back to answering 200 in its last 3 s (12 s left 2 answers there in a CI run).
        await run("pass 3", 16_000, () => proxy.pass());
        await run("restart", 3_000, () => proxy.refuse()); // connections reset, refused for 3 s…
        await run("pass 4", 8_000, () => proxy.pass()); // …then the server is back
        // A PostgreSQL-side fault on the real server: every backend of the console's database ended (57P01).
        await run("terminate", 2_000, async () => {
          await admin.query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
          );
        });
        await run("pass 5", 8_000);
      } finally {
        clearInterval(ticker);
        await Promise.all(inFlight);
        await admin.end();
      }

      // The figures: answers per phase by status (and code).
      const phases = [...new Set(answers.map((a) => a.phase))];
      const table = phases.map((p) => {
        const of = answers.filter((a) => a.phase === p);
        const count = (kind: "api" | "page") => {
          const byStatus: Record<string, number> = {};
          for (const a of of.filter((x) => x.kind === kind)) {
            const label = `${a.status}${a.code ? ` ${a.code}` : ""}`;
            byStatus[label] = (byStatus[label] ?? 0) + 1;
          }
          return Object.entries(byStatus)
            .map(([k, v]) => `${v}×${k}`)
            .join(", ");
        };
        const slowest = (kind: "api" | "page") => Math.max(0, ...of.filter((a) => a.kind === kind).map((a) => a.ms));
        return {
          phase: p,
          answers: of.length,
          api: count("api"),
          pages: count("page"),
          api_slowest_ms: slowest("api"),
          page_slowest_ms: slowest("page"),
        };
      });
      const seconds = (Date.now() - started) / 1_000;
      console.log(
        `database faults: ${answers.length} answers in ${seconds.toFixed(0)} s (${(answers.length / seconds).toFixed(1)}/s of ${RATE_PER_SECOND}/s asked; ${skipped} ticks skipped at ${MAX_IN_FLIGHT} open), deadline ${DEADLINE_MS} ms:`,
      );
      console.table(table);

      const bad = answers.filter((a) => {
        if (a.ms > DEADLINE_MS) return true;
        if (a.status === 200) return false; // counted by `wrong` below when a page was sent elsewhere (sign-in)
        if (a.status !== 503 || a.retryAfter === null) return true;
        if (a.kind === "api") return a.code !== "database_unavailable" && a.code !== "database_timeout";
        return a.finalPath !== "/database-unavailable" || !a.namesDatabase;
      });
      const wrong = answers.filter(
        (a) => !(a.status === 200 && a.finalPath === new URL(a.path, "http://x").pathname) && !(a.status === 503),
      );
      expect(
        wrong.map((a) => `${a.phase} ${a.kind} ${a.path} → ${a.status} ${a.finalPath} ${a.code ?? ""} ${a.ms} ms`),
      ).toEqual([]);
      expect(
        bad
          .filter((a) => a.status !== 200)
          .map(
            (a) =>
              `${a.phase} ${a.kind} ${a.path} → ${a.status} ${a.code ?? ""} retry-after=${a.retryAfter} ${a.ms} ms`,
          ),
      ).toEqual([]);
      expect(
        answers.filter((a) => a.ms > DEADLINE_MS).map((a) => `${a.phase} ${a.kind} ${a.path} took ${a.ms} ms`),
      ).toEqual([]);

      // Every fault was seen, by the API and by pages…
      for (const p of ["refuse", "black-hole", "restart"]) {
        for (const kind of ["api", "page"] as const) {
          expect(
            answers.some((a) => a.phase === p && a.kind === kind && a.status === 503),
            `${p}: some ${kind} 503`,
          ).toBe(true);
        }
      }
      // …and after each, the same console answers 200 again: every answer that arrived in a pass phase's last 3 s
      // (to a request asked in that phase). Told by arrival, not by start: a loaded box takes up to 4 s an answer.
      for (const p of ["pass 1", "pass 2", "pass 3", "pass 4", "pass 5"]) {
        const late = answers.filter((a) => {
          const arrivedAt = a.startedAt + a.ms;
          return a.phase === p && arrivedAt > phaseEnds[p]! - 3_000 && arrivedAt <= phaseEnds[p]!;
        });
        expect(late.length, `${p}: answers in its last 3 s`).toBeGreaterThan(5);
        expect(late.filter((a) => a.status !== 200).map((a) => `${p} ${a.kind} ${a.path} → ${a.status}`)).toEqual([]);
      }
    }, 180_000);
  },
);
