import { describe, expect, it } from "vitest";
import { expectedInstant, parseInstant } from "@/lib/format/instant";

describe("the one instant parser", () => {
  it.each([
    ["2026-11-29", "2026-11-29T00:00:00.000Z"],
    ["2026-11-29T14:05Z", "2026-11-29T14:05:00.000Z"],
    ["2026-11-29T14:05:07Z", "2026-11-29T14:05:07.000Z"],
    ["2026-11-29T14:05:07.123456Z", "2026-11-29T14:05:07.123Z"],
    ["2026-11-29T15:05+01:00", "2026-11-29T14:05:00.000Z"],
    ["2026-11-29T09:05:00-05:00", "2026-11-29T14:05:00.000Z"],
    ["2024-02-29T00:00Z", "2024-02-29T00:00:00.000Z"],
  ])("reads %j as %s", (text, iso) => {
    expect(parseInstant(text)?.toISOString()).toBe(iso);
  });

  it.each([
    ["a time without a zone", "2026-11-29T14:05"],
    ["a time without a zone, with seconds", "2026-11-29T14:05:00.000"],
    ["a date that does not exist", "2026-02-30"],
    ["29 February of a common year", "2026-02-29T00:00Z"],
    ["month 13", "2026-13-01"],
    ["hour 24", "2026-11-29T24:00Z"],
    ["minute 60", "2026-11-29T14:60Z"],
    ["an offset of 24 h", "2026-11-29T14:05+24:00"],
    ["words", "March 3"],
    ["white space around it", " 2026-11-29"],
    ["unix seconds, unless allowed", "1772366400"],
    ["empty", ""],
  ])("refuses %s (%j)", (_, text) => {
    expect(parseInstant(text)).toBeNull();
  });

  it("reads unix seconds where the caller allows them, and still refuses a time without a zone", () => {
    expect(parseInstant("1772366400", { unixSeconds: true })?.toISOString()).toBe("2026-03-01T12:00:00.000Z");
    expect(parseInstant("1772366400.5", { unixSeconds: true })?.toISOString()).toBe("2026-03-01T12:00:00.500Z");
    expect(parseInstant("2026-03-01T13:00+01:00", { unixSeconds: true })?.toISOString()).toBe(
      "2026-03-01T12:00:00.000Z",
    );
    expect(parseInstant("2026-03-01T12:00", { unixSeconds: true })).toBeNull();
    expect(parseInstant("1e9", { unixSeconds: true })).toBeNull();
  });

  it("says what it accepts, with an example of each form", () => {
    expect(expectedInstant()).toBe("an ISO 8601 date (2026-11-29) or date-time with a zone (2026-11-29T14:05:00Z)");
    expect(expectedInstant({ unixSeconds: true })).toMatch(/with a zone .*, or unix seconds$/);
  });
});
