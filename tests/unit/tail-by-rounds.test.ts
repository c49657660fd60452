import { describe, expect, it } from "vitest";
import { tailByRounds } from "@/tools/bench/tail-by-rounds";

const T0 = 1_800_000_000_000;

/** 200 calls due every 10 ms from T0, each taking 1 ms but those named in `slow` (index → ms). */
function calls(slow: Record<number, number>) {
  const dueAt = Array.from({ length: 200 }, (_, i) => T0 + i * 10);
  return { dueAt, ms: dueAt.map((_, i) => slow[i] ?? 1) };
}

describe("bench-writers: the slowest calls against the background rounds", () => {
  it("finds the slowest calls inside the round's scan, and the share of the phase the round took", () => {
    // The round: roll-up 500–600 ms into the phase, scan 600–700 ms. Calls 62 and 65 (due at 620 and 650 ms) are slow.
    const t = tailByRounds(calls({ 62: 40, 65: 30 }), [
      { startedAt: T0 + 500, scanStartedAt: T0 + 600, endedAt: T0 + 700 },
    ]);
    expect(t.rounds).toBe(1);
    expect(t.phaseMs).toBe(1_991); // the last call, due at 1,990 ms, ends at 1,991
    expect(t.roundShare).toBeCloseTo(200 / 1_991, 6);
    expect(t.rollUpShare).toBeCloseTo(100 / 1_991, 6);
    expect(t.scanShare).toBeCloseTo(100 / 1_991, 6);
    // Calls due at 500, 510, …, 690 ms overlap it, and the one due at 490 ms ends at 491: not.
    expect(t.callsInRounds).toBe(20);
    expect(t.calls).toBe(200);
    expect(t.slowest).toBe(2);
    expect(t.slowestInRounds).toBe(2);
    expect(t.slowestInScan).toBe(2);
    expect(t.slowestInRollUp).toBe(0);
    expect(t.p99InRoundsMs).toBe(40);
    expect(t.p99OutsideMs).toBe(1);
  });

  it("says when the slowest calls fall outside every round, and ignores rounds outside the phase", () => {
    const t = tailByRounds(calls({ 10: 50, 150: 45 }), [
      { startedAt: T0 + 500, scanStartedAt: T0 + 600, endedAt: T0 + 700 },
      { startedAt: T0 - 20_000, scanStartedAt: T0 - 19_000, endedAt: T0 - 18_000 },
    ]);
    expect(t.rounds).toBe(1);
    expect(t.slowestInRounds).toBe(0);
    expect(t.p99InRoundsMs).toBe(1);
    expect(t.p99OutsideMs).toBe(45);
  });

  it("counts a round whose roll-up failed (no scan) as roll-up only, and a phase with no round as such", () => {
    const failed = tailByRounds(calls({ 55: 40, 57: 30 }), [
      { startedAt: T0 + 500, scanStartedAt: null, endedAt: T0 + 600 },
    ]);
    expect(failed.scanShare).toBe(0);
    expect(failed.rollUpShare).toBeCloseTo(100 / 1_991, 6);
    expect(failed.slowestInRollUp).toBe(2);
    const none = tailByRounds(calls({}), []);
    expect(none.rounds).toBe(0);
    expect(none.roundShare).toBe(0);
    expect(none.p99InRoundsMs).toBeNull();
    expect(none.callsInRounds).toBe(0);
  });

  it("takes an hour-long phase's calls (bench-writers allows --seconds 3600 at 200 calls/s)", () => {
    const n = 720_000;
    const dueAt = Array.from({ length: n }, (_, i) => T0 + i * 5);
    const t = tailByRounds({ dueAt, ms: dueAt.map(() => 2) }, [
      { startedAt: T0 + 1_000, scanStartedAt: T0 + 1_500, endedAt: T0 + 2_000 },
    ]);
    expect(t.calls).toBe(n);
    expect(t.phaseMs).toBe((n - 1) * 5 + 2);
    expect(t.slowest).toBe(7_200);
  });
});
