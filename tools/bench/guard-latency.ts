import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { summarise, type LatencySummary } from "@/tools/bench/percentiles";
import {
  withIdempotency,
  REFERENCE_CLAIM as TEXT_CLAIM,
  REFERENCE_COMPLETE as TEXT_COMPLETE,
  REFERENCE_LOOK_UP as TEXT_READ,
} from "idem-guard";

export type GuardLatencyReport = {
  iterations: number;
  referenceTextMs: { fresh: LatencySummary; repeat: LatencySummary; claimOnly: LatencySummary };
  guardMs: { fresh: LatencySummary; repeat: LatencySummary };
  roundTrips: { referenceText: { fresh: number; repeat: number }; guard: { fresh: number; repeat: number } };
  textClaimMedianMs: number;
};

const RECEIPT = JSON.stringify({ id: "ch_bench", status: "succeeded", amount_cents: 24000, card_last4: "0071" });

/**
 * Claim-to-complete latency with a side effect that costs nothing, so only the table's cost is
 * measured: the reference writer's statements against the guard, one caller at a time, on
 * one connection each, alternating so both see the same machine state.
 */
export async function measureGuardLatency(
  url: string,
  iterations: number,
  onProgress?: (done: number) => void,
): Promise<GuardLatencyReport> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  let roundTrips = 0;
  const counted = {
    query: (text: string, params?: unknown[]) => ((roundTrips += 1), pool.query(text, params)),
  } as unknown as pg.Pool;
  const run = withIdempotency(
    { db: counted, tool: "bench", statusTool: "bench_status", recordEvents: true },
    async () => JSON.parse(RECEIPT) as unknown,
  );
  const samples = {
    textFresh: [] as number[],
    textRepeat: [] as number[],
    textClaim: [] as number[],
    guardFresh: [] as number[],
    guardRepeat: [] as number[],
  };
  const trips = { textFresh: 0, textRepeat: 0, guardFresh: 0, guardRepeat: 0 };
  const prefix = randomBytes(6).toString("hex");
  try {
    await pool.query("SELECT 1"); // connect before timing
    for (let i = 0; i < iterations; i += 1) {
      const key = `${prefix}${i.toString(16).padStart(52, "0")}`;
      let t = performance.now();
      const claimed = await pool.query(TEXT_CLAIM, [key, "bench"]);
      samples.textClaim.push(performance.now() - t);
      if (claimed.rowCount === 1) await pool.query(TEXT_COMPLETE, [key, RECEIPT]);
      samples.textFresh.push(performance.now() - t);

      t = performance.now();
      const again = await pool.query(TEXT_CLAIM, [key, "bench"]);
      if (again.rowCount === 0) await pool.query(TEXT_READ, [key]);
      samples.textRepeat.push(performance.now() - t);

      const call = { tenant: "bench", subject: prefix, argumentsJson: `{"i":${i}}` };
      roundTrips = 0;
      t = performance.now();
      await run(call);
      samples.guardFresh.push(performance.now() - t);
      trips.guardFresh = roundTrips;

      roundTrips = 0;
      t = performance.now();
      await run(call);
      samples.guardRepeat.push(performance.now() - t);
      trips.guardRepeat = roundTrips;
      onProgress?.(i + 1);
    }
    await pool.query(`DELETE FROM idempotency WHERE tenant = 'bench' AND (key LIKE $1 OR subject = $2)`, [
      `${prefix}%`,
      prefix,
    ]);
    await pool.query(`DELETE FROM idempotency_event WHERE tool = 'bench' AND tenant = 'bench'`);
  } finally {
    await pool.end();
  }
  const textClaim = summarise(samples.textClaim);
  return {
    iterations,
    referenceTextMs: {
      fresh: summarise(samples.textFresh),
      repeat: summarise(samples.textRepeat),
      claimOnly: textClaim,
    },
    guardMs: { fresh: summarise(samples.guardFresh), repeat: summarise(samples.guardRepeat) },
    roundTrips: {
      referenceText: { fresh: 2, repeat: 2 },
      guard: { fresh: trips.guardFresh, repeat: trips.guardRepeat },
    },
    textClaimMedianMs: textClaim.p50Ms,
  };
}
