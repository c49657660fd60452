// What the hot path's statements cost PostgreSQL, unnamed and prepared (issue #31, item 2):
//   npx tsx --conditions=react-server tools/bench/statement-cost.ts <database-url> [checks=5000]
// On a loaded bench database (`idem bench … --keep`): opens one API token and one console session there,
// then, on one connection at a time, runs `checks` times each case — the record detail's read with its
// token check, the same read carrying the check in its statement, and the session check every signed-in page makes — unnamed and prepared in turn, twice,
// and prints the backend's CPU (from /proc: PostgreSQL on this host), this process's CPU and the wall
// time per check.
import { performance } from "node:perf_hooks";
import { checkSession, startSession } from "@/lib/auth/console-sessions";
import { TokenCheckCarrier } from "@/lib/auth/carried-token-check";
import { authenticateToken, createToken, hashToken } from "@/lib/auth/tokens";
import { saveUser } from "@/lib/auth/users";
import { createPrismaClient, prepareStatementsOn, rawPoolOf, type Db } from "@/lib/db/prisma";
import { parseWholeNumber } from "@/lib/field-rules/whole-number";
import { readRecordDetail } from "@/lib/records/record-detail-read";
import { cpuTicks } from "./cpu-affinity";
import { BENCH_ACTOR } from "./run-bench";

const [url, checksText] = process.argv.slice(2);
if (!url || !/^postgres(ql)?:\/\//.test(url))
  refuse("expected a database URL first (a bench database kept with --keep)");
const parsed = checksText === undefined ? { ok: true as const, value: 5_000 } : parseWholeNumber(checksText, 100, 1e6);
const checks = parsed.ok ? parsed.value : refuse(`checks: ${parsed.message}`);
const WARM_UP = 300;
const SESSION_POLICY = { idleMs: 30 * 60_000, maxAgeMs: 12 * 3_600_000 };
const DETAIL_LIMITS = { maxEvents: 51, maxAudit: 50 };

function refuse(message: string): never {
  console.error(`statement-cost: ${message}`);
  process.exit(2);
}

const setup = createPrismaClient(url, 1);
try {
  const [newest] = await setup.$queryRaw<
    { key: string }[]
  >`SELECT key FROM idempotency ORDER BY created_at DESC LIMIT 1`;
  if (!newest) refuse("the database holds no record: load one with `idem bench --rows … --keep`");
  const run = Date.now().toString(36);
  const { token } = await createToken(setup, BENCH_ACTOR, { name: `statement-cost-${run}`, role: "admin" });
  const user = await saveUser(setup, BENCH_ACTOR, { email: `statement-cost-${run}@bench.test`, role: "viewer" });
  const session = await startSession(setup, user.id, "statement-cost");
  const cases: [string, (db: Db) => Promise<unknown>][] = [
    [
      "detail read + token check",
      async (db) => {
        await readRecordDetail(db, BENCH_ACTOR, newest.key, DETAIL_LIMITS);
        await authenticateToken(db, token);
      },
    ],
    [
      "detail read carrying check",
      async (db) => {
        const carrier = new TokenCheckCarrier(hashToken(token), db);
        await readRecordDetail(db, BENCH_ACTOR, newest.key, DETAIL_LIMITS, carrier);
        await authenticateToken(db, token, carrier.row);
      },
    ],
    ["session check", (db) => checkSession(db, session, SESSION_POLICY)],
  ];
  console.log(`${checks.toLocaleString("en-US")} checks each after ${WARM_UP} warm-up, one connection; µs per check`);
  console.log("case                        statements   PostgreSQL CPU   this process CPU     wall");
  for (const [name, check] of cases)
    for (const prepared of [false, true, false, true]) {
      const db = createPrismaClient(url, 1);
      if (prepared) prepareStatementsOn(db);
      try {
        const { rows } = await rawPoolOf(db)!.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        const pid = rows[0]!.pid;
        for (let i = 0; i < WARM_UP; i += 1) await check(db);
        const ticks = cpuTicks(pid);
        const cpu = process.cpuUsage();
        const started = performance.now();
        for (let i = 0; i < checks; i += 1) await check(db);
        const wallUs = ((performance.now() - started) * 1000) / checks;
        const used = process.cpuUsage(cpu);
        const after = cpuTicks(pid);
        // Clock ticks are 10 ms: a figure per check is only as fine as checks allow.
        const backendUs = ticks === null || after === null ? null : ((after - ticks) * 10_000) / checks;
        console.log(
          `${name.padEnd(27)} ${(prepared ? "prepared" : "unnamed").padEnd(12)} ${(backendUs === null ? "not measured" : backendUs.toFixed(0)).padStart(14)}   ${((used.user + used.system) / checks).toFixed(0).padStart(16)} ${wallUs.toFixed(0).padStart(8)}`,
        );
      } finally {
        await db.$disconnect();
      }
    }
} finally {
  await setup.$disconnect();
}
