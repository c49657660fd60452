import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { withIdempotency, type GuardedCall, OutcomeUnknownError } from "idem-guard";
import { midBucketClock } from "../helpers/mid-bucket-clock";

// The protocol's own test: a processor stub that sleeps 2 s and counts invocations is
// the whole harness, and the counter is the assertion. The stub is a real HTTP server.
describe("withIdempotency, against a slow processor that counts", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 6 });
  let processor: DemoUpstream;

  beforeAll(async () => {
    processor = await startDemoProcessor({ latencyMs: 2000, hangMs: 10_000 });
  });
  afterEach(() => processor.reset());
  afterAll(async () => {
    await processor.stop();
    await pool.end();
  });

  const invocations = () => processor.stats().requests.byRoute["POST /charges"] ?? 0;

  // A repeat here must derive the same key as its first call, whatever the wall clock's bucket does meanwhile.
  const clock = midBucketClock();

  function chargeCard(options: { timeoutMs?: number; fault?: string } = {}) {
    return withIdempotency(
      {
        db: pool,
        tool: "charge_card",
        statusTool: "get_charge_status",
        noun: "A charge",
        upstream: "processor",
        clock,
      },
      async ({ key, args }) => {
        const started = Date.now();
        try {
          const response = await fetch(`${processor.url}/charges`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              ...(options.fault ? { "x-demo-fault": options.fault } : {}),
            },
            body: JSON.stringify({ ...(args as object), reference: key }),
            signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
          });
          return (await response.json()) as Record<string, unknown>;
        } catch (error) {
          if ((error as Error).name === "TimeoutError")
            throw new OutcomeUnknownError("processor timeout", Date.now() - started);
          throw error;
        }
      },
    );
  }

  const call = (amount: number): GuardedCall => ({
    tenant: "ref-test",
    subject: "user_1",
    argumentsJson: JSON.stringify({ card: "c_71", amount_cents: amount }),
  });

  it("two concurrent identical calls: the processor is invoked once, the second caller is told it is in flight", async () => {
    const guarded = chargeCard();
    const [first, second] = await Promise.all([guarded(call(24_000)), guarded(call(24_000))]);
    expect(invocations()).toBe(1);
    const outcomes = [first.outcome, second.outcome].sort();
    expect(outcomes).toEqual(["executed", "in_flight"]);
    const rejected = first.outcome === "in_flight" ? first : second;
    if (rejected.outcome !== "in_flight") throw new Error("unreachable");
    expect(rejected.message).toBe(
      `A charge with these exact details is already in progress (ref ${rejected.ref}). Do not submit it again; call get_charge_status with this ref.`,
    );
    expect(rejected).not.toHaveProperty("response");
    // The key went to the processor as its own reference.
    expect(processor.stats().sideEffectsByReference[rejected.key]).toBe(1);
  });

  it("the same pair run sequentially: the second returns the stored response, no second invocation", async () => {
    const guarded = chargeCard();
    const first = await guarded(call(31_000));
    const second = await guarded(call(31_000));
    expect(invocations()).toBe(1);
    expect(first.outcome).toBe("executed");
    expect(second.outcome).toBe("replayed");
    if (first.outcome !== "executed" || second.outcome !== "replayed") throw new Error("unreachable");
    expect(second.response).toEqual(first.response);
    expect(first.response.status).toBe("succeeded");
    const { rows } = await pool.query(`SELECT kind FROM idempotency_event WHERE key = $1`, [first.key]);
    expect(rows).toEqual([{ kind: "replay_served" }]);
  });

  it("without the claim the same harness catches the duplicate: two invocations", async () => {
    // The control: the handler alone, as a host's retry would reach it with no guard.
    const handler = async () =>
      fetch(`${processor.url}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_71", amount_cents: 500 }),
      });
    await Promise.all([handler(), handler()]);
    expect(invocations()).toBe(2);
    expect(processor.stats().sideEffects).toBe(2);
  });

  it("a processor timeout says the outcome is unknown, keeps the claim, and the retry is told it is in flight", async () => {
    const guarded = chargeCard({ timeoutMs: 300, fault: "timeout" });
    const result = await guarded(call(77_700));
    expect(result.outcome).toBe("outcome_unknown");
    if (result.outcome !== "outcome_unknown") throw new Error("unreachable");
    expect(result.message).toMatch(
      new RegExp(
        `The processor did not answer within 0\\.\\d s\\. A charge may or may not have been taken; ref ${result.ref} is recorded\\. Call get_charge_status with this ref before doing anything else\\. Do not retry this call\\.`,
      ),
    );
    const { rows } = await pool.query(`SELECT status, response FROM idempotency WHERE key = $1`, [result.key]);
    expect(rows).toEqual([{ status: "in_progress", response: null }]);

    const retry = await chargeCard()(call(77_700));
    expect(retry.outcome).toBe("in_flight");
    expect(invocations()).toBe(1); // the retry never reached the processor
    // The processor goes on and takes the charge after our client gave up: the unknown was real.
    const status = async () =>
      ((await (await fetch(`${processor.url}/references/${result.key}`)).json()) as { status: string }).status;
    await expect.poll(status, { timeout: 5_000, interval: 200 }).toBe("succeeded");
    const events = await pool.query(`SELECT kind FROM idempotency_event WHERE key = $1 ORDER BY id`, [result.key]);
    expect(events.rows.map((r) => r.kind)).toEqual(["outcome_unknown", "in_flight_rejected"]);
  });

  it("a handler that crashes leaves the claim in flight (a stuck row) and rethrows", async () => {
    const crashing = withIdempotency({ db: pool, tool: "charge_card", statusTool: "get_charge_status" }, async () => {
      throw new Error("process died");
    });
    await expect(crashing(call(1_234))).rejects.toThrow("process died");
    const { rows } = await pool.query(
      `SELECT status FROM idempotency WHERE tenant = 'ref-test' AND status = 'in_progress'`,
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
  });
});
