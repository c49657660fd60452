import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { parseInstantOption } from "@/lib/cli/options";

const now = () => new Date("2026-12-02T02:00:00Z");

describe("--recount-from: how long ago, or an instant by the console's one rule", () => {
  it.each([
    ["40h", "2026-11-30T10:00:00.000Z"],
    ["90m", "2026-12-02T00:30:00.000Z"],
    ["2026-12-01T10:00Z", "2026-12-01T10:00:00.000Z"],
    ["2026-12-01T10:00:30+02:00", "2026-12-01T08:00:30.000Z"],
    [" 2024-02-29T00:00:00.5Z ", "2024-02-29T00:00:00.500Z"],
    ["2026-12-01", "2026-12-01T00:00:00.000Z"],
  ])("%s → %s", (text, iso) => {
    expect(parseInstantOption(text, now).toISOString()).toBe(iso);
  });

  it.each([
    "",
    "0s",
    "-5h",
    "yesterday",
    "2026-12-01 10:00",
    "2026-12-01T10:00", // no offset: the host's zone is rarely the one meant
    "2026-02-31T10:00Z", // Date would roll it over to March 3rd
    "2025-02-29T00:00Z",
    "2026-13-01T00:00Z",
    "2026-12-01T25:00Z",
    "1e309h",
  ])("%j is refused with what it expects", (text) => {
    expect(() => parseInstantOption(text, now)).toThrow(InvalidArgumentError);
    expect(() => parseInstantOption(text, now)).toThrow(
      /expected how long ago \(90m, 40h, 2d\) or an ISO 8601 date \(2026-11-29\) or date-time with a zone/,
    );
  });
});
