import { describe, expect, it } from "vitest";
import { jitMsOf, planText } from "@/tools/bench/sql-side";

const plan = { "Node Type": "Result" };

describe("the bench's plan block", () => {
  it("names JIT compilation where PostgreSQL compiled the statement, and only there", () => {
    const compiled = { Plan: plan, "Execution Time": 14.2, JIT: { Functions: 12, Timing: { Total: 5.1234 } } };
    expect(jitMsOf(compiled)).toBe(5.123);
    expect(jitMsOf({ Plan: plan, "Execution Time": 0.3 })).toBeNull();
    const text = planText([
      {
        sql: "WITH open_claims AS (…)",
        executionMs: 14.2,
        jitMs: jitMsOf(compiled),
        shape: ["Append (rows 69)"],
        problems: [],
      },
      { sql: "SELECT 1 FROM t", executionMs: 0.05, jitMs: null, shape: [], problems: [] },
    ]);
    expect(text.split("\n")).toEqual([
      "-- 14.200 ms (JIT compilation 5.123 ms of it): WITH open_claims AS (…)",
      "   Append (rows 69)",
      "-- 0.050 ms: SELECT 1 FROM t",
    ]);
  });
});
