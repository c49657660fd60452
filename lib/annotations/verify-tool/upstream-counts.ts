/**
 * Side effects counted on the upstream's side of the boundary, where it exposes them: the demo
 * processor and carrier answer `GET {baseUrl}/_stats` with their counters (tools/demo/upstream/counters.ts),
 * the same figures seed-demo hands the metrics as side-effect reports. A real processor answers 404:
 * then only the reference is asked about.
 */
export type SideEffectCounts = {
  total: number;
  byReference: Record<string, number>;
  withoutReference: number;
};

export async function readSideEffectCounts(
  baseUrl: string,
  fetchImpl: typeof fetch,
  timeoutMs: number,
): Promise<SideEffectCounts | null> {
  try {
    const response = await fetchImpl(`${baseUrl.replace(/\/+$/, "")}/_stats`, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      return null;
    }
    const body = (await response.json()) as Record<string, unknown>;
    const byReference = body.sideEffectsByReference;
    if (typeof body.sideEffects !== "number" || typeof byReference !== "object" || byReference === null) return null;
    return {
      total: body.sideEffects,
      byReference: byReference as Record<string, number>,
      withoutReference: typeof body.sideEffectsWithoutReference === "number" ? body.sideEffectsWithoutReference : 0,
    };
  } catch {
    return null;
  }
}

/** What happened between two readings: the run's own side effects. */
export function countsDuring(
  before: SideEffectCounts,
  after: SideEffectCounts,
  reference: string | null,
): { total: number; forReference: number; withoutReference: number } {
  const of = (counts: SideEffectCounts) => (reference === null ? 0 : (counts.byReference[reference] ?? 0));
  return {
    total: after.total - before.total,
    forReference: of(after) - of(before),
    withoutReference: after.withoutReference - before.withoutReference,
  };
}
