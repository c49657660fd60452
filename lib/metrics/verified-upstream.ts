import "server-only";
import type { Db } from "@/lib/db/prisma";

/**
 * What a tool's upstream counted in the newest stored double-call test (`idem verify-tool`, the
 * Tools page's "Verify…") that read its counts: one operation (the same arguments, called
 * `calls` times), and the side effects the processor or carrier performed meanwhile.
 *
 * This is the one place the console learns an upstream's counts in production: it never calls a
 * processor for metrics (every outbound request passes the outbound policy, and only a verify run,
 * against a server marked `"verify": true`, asks for counts). A tool whose writer records no
 * events, or no keys at all, still shows what its upstream did when it was last tested.
 */
export type VerifiedUpstream = {
  /** The tool_verification row. */
  verificationId: string;
  server: string;
  verdict: string;
  /** When the run finished (ISO): the counts are as of then, not of the metrics window. */
  finishedAt: string;
  /** The adapter that read the counts: "http", "mcp-tool shop/get_shipment_status". */
  adapter: string;
  /** Side effects the upstream performed during the run. */
  sideEffects: number;
  /** Operations the run made: one (one set of arguments), whatever the number of calls. */
  operations: 1;
  /** Calls the run made for that one operation (concurrent ones and the sequential repeat). */
  calls: number;
  /** The run's own sentence about the upstream, e.g. "the upstream created 2 shipments for order_id ord-17 …". */
  detail: string;
};

type Row = {
  id: bigint;
  server: string;
  tool: string;
  verdict: string;
  finished_at: Date;
  adapter: string | null;
  side_effects: number;
  calls: number;
  detail: string | null;
};

/**
 * The newest run with upstream counts, per tool (or of one tool). tool_verification holds one row
 * per deliberate run (a person or a CI job starts each), so reading all of them is small.
 */
export async function verifiedUpstreams(db: Db, tool: string | null): Promise<Map<string, VerifiedUpstream>> {
  const result = new Map<string, VerifiedUpstream>();
  const rows = await db.$queryRaw<Row[]>`
    SELECT DISTINCT ON (tool) id, server, tool, verdict, finished_at,
           evidence->'upstream'->>'adapter' AS adapter,
           (evidence->'upstream'->>'sideEffects')::float8 AS side_effects,
           CASE WHEN jsonb_typeof(evidence->'calls') = 'array' THEN jsonb_array_length(evidence->'calls') ELSE 0 END AS calls,
           evidence->'upstream'->>'detail' AS detail
      FROM tool_verification
     WHERE (${tool}::text IS NULL OR tool = ${tool}::text)
       AND jsonb_typeof(evidence->'upstream'->'sideEffects') = 'number'
     ORDER BY tool, finished_at DESC, id DESC`;
  for (const r of rows) {
    // A counter that went backwards (the upstream restarted during the run) is no count.
    if (!Number.isInteger(r.side_effects) || r.side_effects < 0) continue;
    result.set(r.tool, {
      verificationId: String(r.id),
      server: r.server,
      verdict: r.verdict,
      finishedAt: r.finished_at.toISOString(),
      adapter: r.adapter ?? "unknown",
      sideEffects: Number(r.side_effects),
      operations: 1,
      calls: Number(r.calls),
      detail: r.detail ?? "",
    });
  }
  return result;
}
