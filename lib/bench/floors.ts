import { measureApiSide } from "./api-side";
import type { ApiRequest } from "./bench-cases";
import { summarise } from "./percentiles";

/**
 * The two floors printed beside every API case, measured the same way (measureApiSide: one
 * request at a time, kept-alive, whole body read) right after the case, so the three figures
 * share the machine's load of that moment:
 * - the trivial route: the console's own `GET /api/health` (Next's router, the proxy, one
 *   `SELECT 1` through Prisma) — what any request of this console costs;
 * - the bare handler: the ref lookup on `node:http` + `pg` (bare-lookup-server.ts) — what the
 *   lookup costs without Next.js and Prisma.
 */
export type Floors = { trivialP50Ms: number; bareP50Ms: number };

export type FloorTargets = {
  console: { baseUrl: string; authorization: string };
  bare: { baseUrl: string; authorization: string };
  /** Inputs of the bare lookup: the ref lookup case's pasted texts. */
  lookupTexts: string[];
};

const TRIVIAL: ApiRequest = { method: "GET", path: "/api/health" };

export async function measureFloors(
  targets: FloorTargets,
  options: { iterations: number; warmup: number },
): Promise<Floors> {
  const trivial = await measureApiSide(
    { name: "trivial route (GET /api/health)", inputs: [""], api: () => TRIVIAL },
    targets.console,
    { ...options, firstInput: 0 },
  );
  const bare = await measureApiSide(
    {
      name: "bare node:http + pg lookup",
      inputs: targets.lookupTexts,
      api: (text) => ({ method: "GET", path: `/api/v1/lookup?q=${encodeURIComponent(text)}` }),
    },
    targets.bare,
    { ...options, firstInput: 0 },
  );
  return { trivialP50Ms: summarise(trivial.samples).p50Ms, bareP50Ms: summarise(bare.samples).p50Ms };
}

/** a / b to one decimal, 0 when b is 0. */
export function ratioOf(a: number, b: number): number {
  return b > 0 ? Math.round((a / b) * 10) / 10 : 0;
}
