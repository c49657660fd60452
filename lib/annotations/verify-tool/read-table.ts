import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { RETENTION_MS } from "@/lib/retention/retention-window";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import {
  attributeRows,
  judgeTable,
  WINDOW_LIMIT,
  type AnsweredCall,
  type TableFinding,
  type TableRow,
} from "./judge-table";
import { bucketOf, type KeyWindow } from "./key-window";

export type { TableFinding } from "./judge-table";

type Found = { key: string; tool: string | null; status: string; response: unknown; created_at: Date };
const toRow = (r: Found): TableRow => ({
  key: r.key,
  tool: r.tool,
  status: r.status,
  response: r.response,
  createdAt: r.created_at,
});

/** Clocks differ: the writer stamps created_at by the database, the bucket by its own clock. */
const CLOCK_SKEW_MS = 60_000;

/**
 * Reads the table side of a run (judge-table.ts judges it): the rows the in-flight answers named by their
 * ref (any age, any tool column), and the rows written during the run that record this tool or none. When
 * none of them is the run's, before anything is held against the tool, the row its calls were answered from:
 * a completed row written before the run began holding the response they received — first in the current
 * time bucket, then back to the retention window (a business key, or a window the console was not told).
 */
export async function readTable(
  db: Db,
  actor: Actor,
  run: { tool: string; from: Date; to: Date; keyWindow: KeyWindow },
  expected: { ref: string | null; refs: readonly string[]; content: string | null },
  calls: readonly AnsweredCall[],
): Promise<TableFinding> {
  const scope = actorTenantScope(actor).and();
  const refs = expected.refs.filter((r) => /^[0-9a-f]{8,64}$/.test(r));
  // A ref is a key's prefix: in the key's "C" collation, [ref, ref + "g") is exactly the keys that start with it.
  const named =
    refs.length === 0
      ? []
      : await db.$queryRaw<Found[]>`
          SELECT key, tool, status, response, created_at FROM idempotency
           WHERE (${Prisma.join(
             refs.map((ref) => Prisma.sql`(key >= ${ref} AND key < ${`${ref}g`})`),
             " OR ",
           )}) ${scope}
           ORDER BY created_at, key LIMIT ${WINDOW_LIMIT}`;
  const during = await db.$queryRaw<Found[]>`
    SELECT key, tool, status, response, created_at FROM idempotency
     WHERE created_at >= ${run.from} AND created_at <= ${run.to}
       AND (tool = ${run.tool} OR tool IS NULL) ${scope}
     ORDER BY (tool IS NULL), created_at, key LIMIT ${WINDOW_LIMIT + 1}`;
  const contents = [...new Set(calls.flatMap((c) => (c.content === null ? [] : [c.content])))];
  const attribution = attributeRows([...named, ...during.slice(0, WINDOW_LIMIT)].map(toRow), {
    tool: run.tool,
    from: run.from,
    refs,
    contents,
  });

  let earlier = attribution.earlierByRef;
  if (earlier === null && attribution.runRows.length === 0 && attribution.ambiguous.length === 0) {
    const bucketStart =
      run.keyWindow.kind === "bucket"
        ? new Date(bucketOf(run.from, run.keyWindow.seconds) * run.keyWindow.seconds * 1000 - CLOCK_SKEW_MS)
        : null;
    const retentionStart = new Date(run.from.getTime() - RETENTION_MS);
    for (const since of bucketStart ? [bucketStart, retentionStart] : [retentionStart]) {
      earlier = await earlierRowByResponse(db, scope, run.tool, since, run.from, contents);
      if (earlier) break;
    }
  }
  return judgeTable({
    tool: run.tool,
    attribution,
    earlier,
    truncated: during.length > WINDOW_LIMIT,
    expected,
    calls,
    keyWindow: run.keyWindow,
    from: run.from,
  });
}

/**
 * The newest completed row written in [since, before) that records this tool or none and holds one of the
 * answers' contents (jsonb equality: key order and number spelling aside, the same document).
 */
async function earlierRowByResponse(
  db: Db,
  scope: Prisma.Sql,
  tool: string,
  since: Date,
  before: Date,
  contents: readonly string[],
): Promise<TableRow | null> {
  // jsonb refuses what JSON allows in two places: NUL in a string and a lone surrogate.
  const documents = contents.filter((c) => !/\\u0000|\\ud[89a-f]/i.test(c));
  if (documents.length === 0) return null;
  const [row] = await db.$queryRaw<Found[]>`
    SELECT key, tool, status, response, created_at FROM idempotency
     WHERE created_at >= ${since} AND created_at < ${before}
       AND (tool = ${tool} OR tool IS NULL) AND status = 'completed'
       AND response = ANY(${documents}::text[]::jsonb[]) ${scope}
     ORDER BY created_at DESC, key DESC LIMIT 1`;
  return row ? toRow(row) : null;
}
