import type { Queryable } from "idem-guard";

/**
 * Side effects per operation can only come from the far side of the boundary: the processor
 * counts what it actually performed per reference (the reference is the idempotency key), which
 * is the one observable where a duplicate differs from a replay. The console cannot ask a real
 * processor for that, so only a processor that reports it gets the figure: the demo processor and
 * carrier keep per-reference counters (in memory), and seed-demo hands them over here at the end
 * of its run. Everything else shows "not reported".
 *
 * The report is joined to the claims it names and summed per claim hour, tenant and tool. It
 * replaces earlier reports for those hours: a processor's counters are cumulative, so the
 * latest report is the whole truth for the references it covers.
 */
export async function recordProcessorSideEffects(
  db: Queryable,
  sideEffectsByReference: Record<string, number>,
): Promise<{ hours: number; operations: number }> {
  const references = Object.keys(sideEffectsByReference);
  if (references.length === 0) return { hours: 0, operations: 0 };
  const { rows } = await db.query<{ hours: string; operations: string }>(
    `WITH report AS (
       SELECT * FROM unnest($1::text[], $2::int8[]) AS r(reference, side_effects)
     ), counted AS (
       INSERT INTO processor_side_effect_count (hour, tenant, tool, operations, side_effects, reported_at)
       SELECT date_bin('1 hour', i.created_at, '2000-01-01T00:00:00Z'), i.tenant, COALESCE(i.tool, ''), count(*), sum(r.side_effects), now()
       FROM report r JOIN idempotency i ON i.key = r.reference
       GROUP BY 1, 2, 3
       ON CONFLICT (hour, tenant, tool) DO UPDATE
         SET operations = excluded.operations, side_effects = excluded.side_effects, reported_at = excluded.reported_at
       RETURNING operations
     )
     SELECT count(*)::text AS hours, COALESCE(sum(operations), 0)::text AS operations FROM counted`,
    [references, references.map((r) => sideEffectsByReference[r] ?? 0)],
  );
  return { hours: Number(rows[0]?.hours ?? 0), operations: Number(rows[0]?.operations ?? 0) };
}
