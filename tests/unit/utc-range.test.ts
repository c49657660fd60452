import { describe, expect, it } from "vitest";
import { formatUtcRange } from "@/lib/format/utc-range";

describe("a UTC window in words", () => {
  it("writes the end's date when the window crosses midnight (a 24 h window must not read as empty)", () => {
    expect(formatUtcRange("2026-11-30T20:38:58.123Z", "2026-12-01T20:38:58.456Z")).toBe(
      "2026-11-30 20:38:58 – 2026-12-01 20:38:58 UTC",
    );
    expect(formatUtcRange("2026-11-24T20:38:58Z", "2026-12-01T20:38:58Z")).toBe(
      "2026-11-24 20:38:58 – 2026-12-01 20:38:58 UTC",
    );
  });

  it("leaves the end's date out only when both ends are on the same UTC day", () => {
    expect(formatUtcRange("2026-12-01T00:00:00Z", "2026-12-01T23:59:59Z")).toBe("2026-12-01 00:00:00 – 23:59:59 UTC");
  });

  it("reads the day in UTC, whatever the offset the instants were written with", () => {
    expect(formatUtcRange("2026-12-01T01:00:00+02:00", "2026-12-01T10:00:00Z")).toBe(
      "2026-11-30 23:00:00 – 2026-12-01 10:00:00 UTC",
    );
  });
});
