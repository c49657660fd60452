import type { UpstreamStats } from "./upstream-types";

/**
 * What the upstream actually did, counted on its side of the boundary: a duplicate charge and a
 * replayed one look the same to the caller, and differ only here.
 */
export function createCounters() {
  let total = 0;
  let byRoute = new Map<string, number>();
  let sideEffects = 0;
  let byReference = new Map<string, number>();
  let withoutReference = 0;
  let duplicatesPrevented = 0;
  let timeoutsInjected = 0;
  let failuresInjected = 0;

  return {
    request(route: string | undefined): void {
      total += 1;
      if (route) byRoute.set(route, (byRoute.get(route) ?? 0) + 1);
    },
    sideEffect(reference: string | undefined): void {
      sideEffects += 1;
      if (reference === undefined) withoutReference += 1;
      else byReference.set(reference, (byReference.get(reference) ?? 0) + 1);
    },
    duplicatePrevented(): void {
      duplicatesPrevented += 1;
    },
    timeoutInjected(): void {
      timeoutsInjected += 1;
    },
    failureInjected(): void {
      failuresInjected += 1;
    },
    /** A copy: later requests do not change a snapshot already handed out. */
    snapshot(): UpstreamStats {
      return {
        requests: { total, byRoute: Object.fromEntries(byRoute) },
        sideEffects,
        // Object.fromEntries defines own properties, so a reference named "__proto__" stays data.
        sideEffectsByReference: Object.fromEntries(byReference),
        sideEffectsWithoutReference: withoutReference,
        duplicatesPrevented,
        timeoutsInjected,
        failuresInjected,
      };
    },
    reset(): void {
      total = 0;
      byRoute = new Map();
      sideEffects = 0;
      byReference = new Map();
      withoutReference = 0;
      duplicatesPrevented = 0;
      timeoutsInjected = 0;
      failuresInjected = 0;
    },
  };
}

export type Counters = ReturnType<typeof createCounters>;
