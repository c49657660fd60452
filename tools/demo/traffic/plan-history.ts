import { canonicalJson } from "@/tools/demo/upstream/canonical-json";
import { BUCKET_MS, bucketOf } from "@/tools/demo/traffic/buckets";
import { createPrng, type Prng } from "@/tools/demo/traffic/prng";
import { buildScenario, SCENARIO_WEIGHTS } from "@/tools/demo/traffic/scenario-builders";
import { SCENARIO_KINDS, type Scenario, type ScenarioKind } from "@/tools/demo/traffic/plan-types";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export type PlanOptions = { seed: number; hours: number; end: Date; callsPerHour: number };

/** More traffic in the (UTC) afternoon than at night, so the metrics pages have a shape. */
function busyness(at: number): number {
  const hour = (at / HOUR) % 24;
  return 0.25 + 0.75 * (0.5 - 0.5 * Math.cos((2 * Math.PI * (hour - 3)) / 24));
}

function drawStart(rng: Prng, from: number, to: number): Date {
  for (;;) {
    const at = from + Math.floor(rng.next() * (to - from));
    if (rng.next() < busyness(at)) return new Date(at);
  }
}

/**
 * The whole history, decided before any call is made: the same seed, hours and end give the
 * same scenarios, in the same order, with the same arguments, faults and simulated times.
 */
export function planHistory(options: PlanOptions): Scenario[] {
  const rng = createPrng(options.seed);
  // The body of the history ends on a bucket boundary: which retries share a bucket (and so a
  // key) then depends only on the seed, not on the minute the history was generated.
  const end = Math.floor(options.end.getTime() / BUCKET_MS) * BUCKET_MS;
  const start = end - options.hours * HOUR;
  const target = Math.round(options.callsPerHour * options.hours);
  let orders = 0;
  const nextOrderId = () => `ord_${String(++orders).padStart(6, "0")}`;
  // Which scenario owns each charge key: unrelated purchases must not collide by accident.
  const owners = new Map<string, number>();
  const scenarios: Scenario[] = [];
  let calls = 0;

  const place = (kind: ScenarioKind, from: number, to: number, until = end): void => {
    for (let attempt = 0; attempt < 5; attempt++) {
      const scenario = buildScenario(kind, { rng, start: drawStart(rng, from, to), end: new Date(until), nextOrderId });
      const keys = new Set<string>();
      for (const call of scenario.steps.flat()) {
        if (call.tool !== "charge_card" || typeof call.args === "function") continue;
        keys.add(`${call.tenant}|${call.subject}|${canonicalJson(call.args)}|${bucketOf(call.at)}`);
      }
      if ([...keys].some((key) => owners.has(key))) continue;
      for (const key of keys) owners.set(key, scenarios.length);
      scenarios.push(scenario);
      calls += scenario.steps.reduce((n, step) => n + step.length, 0);
      return;
    }
  };

  // Every kind at least once, so even a short history has rows in every state and every event.
  for (const kind of SCENARIO_KINDS)
    if (!kind.startsWith("live_")) place(kind, start, Math.max(start + MINUTE, end - 15 * MINUTE));
  while (calls < target) place(rng.weighted(SCENARIO_WEIGHTS), start, end);
  // A few claims younger than any stuck threshold, in flight "right now" (the real end): single
  // calls by a customer of their own, so they cannot meet anything else whatever the alignment.
  const now = options.end.getTime();
  for (const kind of ["live_timeout", "live_crash_after", "live_crash_before"] as const)
    place(kind, now - 4 * MINUTE, now - 30_000, now);

  return scenarios.sort((a, b) => a.start.getTime() - b.start.getTime());
}
