import { describe, expect, it } from "vitest";
import { firstKindOf } from "@/tools/bench/console-load";

const starts = (users: number, kinds: number) => Array.from({ length: users }, (_, u) => firstKindOf(u, users, kinds));

describe("the bench's console load: where each user starts", () => {
  it("spreads fewer users than kinds over the whole list", () => {
    // bench-writers.test's small run: 4 users, 14 kinds; one starts next to the Prometheus scrape (kind 8).
    expect(starts(4, 14)).toEqual([0, 3, 7, 10]);
  });

  it("starts more users than kinds on every kind, in range", () => {
    const first = starts(16, 14);
    expect(new Set(first).size).toBe(14);
    expect(Math.max(...first)).toBeLessThan(14);
  });
});
