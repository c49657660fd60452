import { apiUrl } from "@/lib/api/api-url";
import { API_ROUTES } from "@/lib/api/routes";
import { timeRequest } from "./api-side";
import type { ApiRequest, BenchCase } from "./bench-cases";
import { summarise } from "./percentiles";

/**
 * The two floors printed beside every API case, measured the same way as the case (one request
 * at a time, kept-alive, whole body read) and interleaved with it — case, trivial, bare, case,
 * trivial, bare… — so all three share the machine's load of the same moments:
 * - the trivial route: the console's own `GET /api/health` (Next's router and one `SELECT 1` on
 *   the client's pg pool; the proxy skips it, next.config.ts gives it its headers) — the least a
 *   request of this console costs; a proxied API request pays ~1 ms more (scripts/trivial-route-breakdown.ts);
 * - the bare handler: the ref lookup on `node:http` + `pg` (bare-lookup-server.ts) — what the
 *   lookup costs without Next.js and Prisma.
 * A case that changes its row (resolve, `fresh`) has no inputs to spare for a second pass: its
 * own figure is the API side's, measured just before.
 */
export type Floors = {
  /** The case's API p50 in the interleaved pass; null for a fresh case. */
  caseP50Ms: number | null;
  trivialP50Ms: number;
  bareP50Ms: number;
};

export type FloorTargets = {
  console: { baseUrl: string; authorization: string };
  bare: { baseUrl: string; authorization: string };
  /** Inputs of the bare lookup: the ref lookup case's pasted texts. */
  lookupTexts: string[];
};

const TRIVIAL: ApiRequest = { method: "GET", path: "/api/health" };

export async function measureFloors(
  benchCase: BenchCase,
  targets: FloorTargets,
  options: { iterations: number; warmup: number },
): Promise<Floors> {
  const samples = { case: [] as number[], trivial: [] as number[], bare: [] as number[] };
  for (let k = 0; k < options.warmup + options.iterations; k += 1) {
    const keep = k >= options.warmup;
    if (!benchCase.fresh) {
      const request = benchCase.api(benchCase.inputs[k % benchCase.inputs.length]!);
      const { elapsed } = await timeRequest(benchCase.name, targets.console, request);
      if (keep) samples.case.push(elapsed);
    }
    const trivial = await timeRequest("trivial route", targets.console, TRIVIAL);
    if (keep) samples.trivial.push(trivial.elapsed);
    const text = targets.lookupTexts[k % targets.lookupTexts.length]!;
    const bare = await timeRequest("bare lookup", targets.bare, {
      method: "GET",
      path: apiUrl(API_ROUTES.lookup, {}, { q: text }),
    });
    if (keep) samples.bare.push(bare.elapsed);
  }
  return {
    caseP50Ms: benchCase.fresh ? null : summarise(samples.case).p50Ms,
    trivialP50Ms: summarise(samples.trivial).p50Ms,
    bareP50Ms: summarise(samples.bare).p50Ms,
  };
}

/** a / b to one decimal, 0 when b is 0. */
export function ratioOf(a: number, b: number): number {
  return b > 0 ? Math.round((a / b) * 10) / 10 : 0;
}
