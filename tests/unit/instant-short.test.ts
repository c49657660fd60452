import { describe, expect, it } from "vitest";
import { formatInstant, formatInstantShort, instantRule } from "@/lib/url-state/field-rules";

describe("formatInstantShort: an instant as a filter field shows it", () => {
  it("the date alone at UTC midnight, minutes without zero seconds, else the whole instant", () => {
    expect(formatInstantShort(new Date("2026-12-01T00:00:00Z"))).toBe("2026-12-01");
    expect(formatInstantShort(new Date("2026-12-01T14:05:00Z"))).toBe("2026-12-01T14:05Z");
    expect(formatInstantShort(new Date("2026-12-01T00:05:00Z"))).toBe("2026-12-01T00:05Z");
    expect(formatInstantShort(new Date("2026-12-01T14:05:07Z"))).toBe("2026-12-01T14:05:07Z");
    expect(formatInstantShort(new Date("2026-12-01T00:00:00.250Z"))).toBe("2026-12-01T00:00:00.250Z");
  });

  it("reads back as the same instant, at every precision", () => {
    const instants = [
      "2026-12-01T00:00:00Z",
      "2026-12-01T14:05:00Z",
      "2026-12-01T14:05:07Z",
      "2026-12-01T14:05:07.001Z",
      "1999-12-31T23:59:59.999Z",
    ].map((text) => new Date(text));
    for (const instant of instants) {
      const read = instantRule(formatInstantShort(instant));
      expect(read.ok && read.value.getTime(), formatInstant(instant)).toBe(instant.getTime());
    }
  });
});
