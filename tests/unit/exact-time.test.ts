import { describe, expect, it } from "vitest";
import { EXACT_TIME_FORMAT, exactTimeSql, parseExactTime } from "@/lib/format/exact-time";

describe("exact time text", () => {
  it("is written by one to_char format, in UTC", () => {
    expect(EXACT_TIME_FORMAT).toBe(`YYYY-MM-DD"T"HH24:MI:SS.US"Z"`);
    expect(exactTimeSql("a.at")).toBe(`to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);
  });

  it("accepts what that format writes: six fraction digits, Z", () => {
    expect(parseExactTime("2026-11-29T17:26:25.801030Z")).toBe("2026-11-29T17:26:25.801030Z");
    expect(parseExactTime("2024-02-29T23:59:59.999999Z")).toBe("2024-02-29T23:59:59.999999Z");
  });

  it.each([
    ["milliseconds only", "2026-11-29T17:26:25.801Z"],
    ["no zone", "2026-11-29T17:26:25.801030"],
    ["an offset", "2026-11-29T17:26:25.801030+00:00"],
    ["a date that does not exist", "2026-02-30T00:00:00.000000Z"],
    ["a 29 February of a common year", "2026-02-29T00:00:00.000000Z"],
    ["hour 24", "2026-11-29T24:00:00.000000Z"],
    ["minute 60", "2026-11-29T10:60:00.000000Z"],
    ["text around it", " 2026-11-29T17:26:25.801030Z"],
    ["empty", ""],
  ])("refuses %s", (_, text) => {
    expect(parseExactTime(text)).toBeNull();
  });
});
