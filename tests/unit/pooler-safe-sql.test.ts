import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The console serves through PgBouncer in transaction mode (tests/setup/global-pgbouncer.ts), where
 * a server connection is the console's for one transaction only. State that outlives a transaction
 * would stay on that server connection for whichever client gets it next, and be missing from this
 * client's next transaction: so nothing on the console's request path may use it. Outside the path:
 * the CLI and tools/bench (their own direct connections), migrations and the search-index builder (both
 * run at start on the owner's direct connection, refused behind a pooler).
 */
const ROOTS = ["lib", "app", "components", "tools", "proxy.ts", "instrumentation.ts"];
const OUTSIDE_REQUEST_PATH = [
  /^lib\/cli\//,
  /^tools\/bench\//,
  /^lib\/db\/migrate\.ts$/,
  /^lib\/search\/search-indexes\.ts$/,
];

const RULES: { name: string; pattern: RegExp; instead: string }[] = [
  {
    name: "a session-level advisory lock",
    pattern: /pg_(try_)?advisory_(un)?lock(_shared)?\s*\(/gi,
    instead: "pg_advisory_xact_lock inside the transaction: released at COMMIT, held by nobody after",
  },
  {
    name: "a session SET (outside a transaction, or SET SESSION)",
    // SQL text that starts with SET (after a quote, a backtick or a semicolon), except SET LOCAL / SET CONSTRAINTS.
    pattern: /[`'";]\s*SET\s+(?!LOCAL\b|CONSTRAINTS\b)(SESSION\s+)?[A-Za-z_."]+\s*(=|TO\b)/gi,
    instead: "SET LOCAL or set_config(name, value, true) inside the transaction",
  },
  {
    name: "set_config(…, false), a session-wide setting",
    pattern: /set_config\s*\([^\n;]*?,\s*false\s*\)/gi,
    instead: "set_config(name, value, true) inside the transaction",
  },
  { name: "LISTEN / UNLISTEN", pattern: /[`'";]\s*(UN)?LISTEN\s/gi, instead: "polling a table" },
  {
    name: "a named prepared statement",
    pattern: /[`'";]\s*(PREPARE|DEALLOCATE)\s|\bname:\s*["'`][^"'`]*["'`],\s*text:/gi,
    instead: "unnamed statements (what Prisma and pg send by default)",
  },
  { name: "a cursor WITH HOLD", pattern: /\bWITH\s+HOLD\b/gi, instead: "keyset batches" },
];

function sourceFiles(entry: string): string[] {
  if (!statSync(entry).isDirectory()) return /\.(ts|tsx)$/.test(entry) ? [entry] : [];
  return readdirSync(entry).flatMap((name) => sourceFiles(path.join(entry, name)));
}

/** Every rule a text breaks, as "file:line: what (use …)". */
function poolerUnsafeSql(file: string, text: string): string[] {
  return RULES.flatMap((rule) =>
    [...text.matchAll(rule.pattern)].map((m) => {
      const line = text.slice(0, m.index).split("\n").length;
      return `${file}:${line}: ${rule.name} — ${m[0].trim()} (use ${rule.instead})`;
    }),
  );
}

describe("SQL on the console's request path survives transaction pooling", () => {
  const files = ROOTS.flatMap(sourceFiles).filter((f) => !OUTSIDE_REQUEST_PATH.some((p) => p.test(f)));

  it("no session advisory lock, session SET, LISTEN, named prepared statement or held cursor", () => {
    expect(files).toContain("lib/metrics/rollup.ts"); // the scan sees the request path's SQL
    expect(files.length).toBeGreaterThan(200);
    expect(files.flatMap((f) => poolerUnsafeSql(f, readFileSync(f, "utf8")))).toEqual([]);
  });

  it("recognises each kind, and leaves transaction-local state and UPDATE … SET alone", () => {
    const unsafe = [
      "await client.query('SELECT pg_advisory_lock($1)', [id]);",
      "await tx.$executeRaw`SELECT pg_try_advisory_lock(${id})`;",
      "await db.$executeRawUnsafe(`SET statement_timeout = 1000`);",
      'await db.$executeRawUnsafe("SET SESSION lock_timeout TO 0");',
      "await db.$queryRaw`SELECT set_config('statement_timeout', ${ms}, false)`;",
      "await tx.$queryRaw`SELECT set_config('lock_timeout', ${String(Math.round(ms))}, false)`;",
      "await client.query('LISTEN idem_changes');",
      "await client.query({ name: 'lookup', text: 'SELECT 1' });",
      "await client.query('BEGIN; SET work_mem = 1')",
    ];
    for (const line of unsafe) expect(poolerUnsafeSql("x.ts", line), line).toHaveLength(1);
    const safe = [
      "await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ID}::int8)`;",
      "await tx.$executeRaw`SET LOCAL lock_timeout = 0`;",
      "await tx.$queryRaw`SELECT set_config('statement_timeout', ${ms}, true)`;",
      "`UPDATE idempotency SET status = 'completed' WHERE key = $1`",
      "`INSERT INTO t VALUES (1) ON CONFLICT (k) DO UPDATE\n   SET n = excluded.n`",
    ];
    for (const line of safe) expect(poolerUnsafeSql("x.ts", line), line).toEqual([]);
  });
});
