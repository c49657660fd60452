import { describe, expect, it } from "vitest";
import { drainBatches, type BatchStep } from "@/lib/retention/drain-batches";

describe("drainBatches", () => {
  it("runs each batch from where the last ended, until one comes back short", async () => {
    // 25 items in batches of 10: 10, 10, then 5 (short: the last).
    const starts: number[] = [];
    const seen: number[] = [];
    await drainBatches<number, BatchStep<number>>(
      0,
      async (position: number) => {
        starts.push(position);
        const count = Math.min(10, 25 - position);
        return { count, position: position + count, more: count === 10 };
      },
      (batch) => seen.push(batch.count),
    );
    expect(starts).toEqual([0, 10, 20]);
    expect(seen).toEqual([10, 10, 5]);
  });

  it("an empty last batch is not reported, and an empty first batch ends it at once", async () => {
    const seen: number[] = [];
    let calls = 0;
    await drainBatches<number, BatchStep<number>>(
      0,
      async (position: number) => {
        calls += 1;
        return position < 20 ? { count: 10, position: position + 10, more: true } : { count: 0, position, more: false };
      },
      (batch) => seen.push(batch.count),
    );
    expect([calls, seen]).toEqual([3, [10, 10]]);

    calls = 0;
    await drainBatches(
      null,
      async () => {
        calls += 1;
        return { count: 0, position: null, more: false };
      },
      () => seen.push(-1),
    );
    expect(calls).toBe(1);
    expect(seen).toEqual([10, 10]);
  });
});
