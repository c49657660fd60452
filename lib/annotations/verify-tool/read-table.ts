import "server-only";
import type { VerificationCheck, VerificationEvidence } from "@/lib/annotations/tool-verification-types";
import type { Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { canonicalOf } from "./answer-text";

/** More rows than this in the window is already a finding; the evidence keeps this many. */
const MAX_ROWS = 20;

export type TableFinding = VerificationCheck & {
  rows: VerificationEvidence["rows"];
  /** The row's key when exactly one row was written: the reference the upstream is asked about. */
  key: string | null;
};

/**
 * The table side: exactly one row for the tool, written during the run, whose key starts with the
 * ref the in-flight answers named, completed with the response the repeats received. A server that
 * keys on the bytes it received writes one row per key order; one that claims nothing writes none.
 */
export async function readTable(
  db: Db,
  actor: Actor,
  window: { tool: string; from: Date; to: Date },
  expected: { ref: string | null; content: string | null },
): Promise<TableFinding> {
  const found = await db.$queryRaw<{ key: string; status: string; response: unknown; created_at: Date }[]>`
    SELECT key, status, response, created_at FROM idempotency
     WHERE tool = ${window.tool} AND created_at >= ${window.from} AND created_at <= ${window.to}
       ${actorTenantScope(actor).and()}
     ORDER BY created_at, key LIMIT ${MAX_ROWS + 1}`;
  const rows = found
    .slice(0, MAX_ROWS)
    .map((r) => ({ key: r.key, status: r.status, createdAt: r.created_at.toISOString() }));
  const finding = (result: VerificationCheck["result"], detail: string, key: string | null = null): TableFinding => ({
    step: "table",
    result,
    detail,
    rows,
    key,
  });
  const tool = window.tool;
  if (found.length === 0)
    return finding(
      "failed",
      `the table holds no row for ${tool} written during the run: the tool claimed no idempotency key before its side effect`,
    );
  if (found.length > 1) {
    const count = found.length > MAX_ROWS ? `more than ${MAX_ROWS}` : String(found.length);
    return finding(
      "failed",
      `the table holds ${count} rows for ${tool} written during the run (keys ${found
        .slice(0, 3)
        .map((r) => r.key.slice(0, 12))
        .join(", ")}${found.length > 3 ? ", …" : ""}), not 1: the same call was claimed under more than one key`,
    );
  }
  const row = found[0]!;
  const ref = row.key.slice(0, 12);
  if (expected.ref !== null && !row.key.startsWith(expected.ref))
    return finding(
      "failed",
      `the one row for ${tool} has key ${ref}…, but the in-flight answers named ref ${expected.ref}`,
      row.key,
    );
  if (row.status !== "completed")
    return finding("failed", `the row ${ref} is ${row.status}, not completed, after every call answered`, row.key);
  if (expected.content !== null && canonicalOf(row.response) !== expected.content)
    return finding(
      "failed",
      `the row ${ref} is completed with a response other than the one the repeat received`,
      row.key,
    );
  return finding(
    "passed",
    `one row for ${tool} (ref ${ref}), completed with the response the repeat received`,
    row.key,
  );
}
