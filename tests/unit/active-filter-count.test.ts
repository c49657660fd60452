import { describe, expect, it } from "vitest";
import { activeFilterCount, EMPTY_FILTER } from "@/lib/records/list-filters";

// The n of a phone's folded "Filters (n)": every filter that is set counts once; none set is 0.
describe("activeFilterCount", () => {
  it("counts each set filter, from and to apart, the stuck box only when ticked", () => {
    expect(activeFilterCount(EMPTY_FILTER)).toBe(0);
    expect(activeFilterCount({ ...EMPTY_FILTER, tool: "charge_card", status: "completed" })).toBe(2);
    expect(activeFilterCount({ ...EMPTY_FILTER, stuck: true })).toBe(1);
    expect(
      activeFilterCount({
        tenant: "acme",
        subject: "user_1",
        tool: "charge_card",
        status: "in_progress",
        stuck: true,
        field: { label: "receipt", value: "ch_1" },
        from: new Date("2026-12-01T00:00:00Z"),
        to: new Date("2026-12-02T00:00:00Z"),
      }),
    ).toBe(8);
  });
});
