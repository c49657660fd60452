import { describe, expect, it } from "vitest";
import { redactJson } from "@/lib/privacy/redact";
import { storedAmount } from "@/lib/records/response-facts";

// The amount on a record's summary: what the stored response holds, in the unit its field names,
// whatever the outcome; "not recorded" when it holds none, never 0; a masked one never read back.
describe("storedAmount", () => {
  it("names the unit its field names, and the currency only when stored beside it", () => {
    expect(storedAmount({ status: "succeeded", amount_cents: 24_000 })).toEqual({
      state: "recorded",
      cents: 24_000,
      currency: null,
      text: "24,000 cents",
      path: "$.amount_cents",
    });
    expect(storedAmount({ amount_cents: 24_000, currency: "usd" })).toMatchObject({ text: "24,000 cents USD" });
    expect(storedAmount({ amount_cents: 0 })).toMatchObject({ state: "recorded", text: "0 cents" });
  });

  it("a refusal's amount is still what the response holds (the answer says it was not charged)", () => {
    const decline = { status: "failed", error: { code: "card_declined" }, amount_cents: 500 };
    expect(storedAmount(decline)).toMatchObject({ state: "recorded", text: "500 cents" });
  });

  it("no response, no field, or a null field: not recorded", () => {
    for (const response of [null, undefined, "ok", [], {}, { id: "ch_1" }, { amount_cents: null }])
      expect(storedAmount(response), JSON.stringify(response)).toEqual({ state: "not_recorded" });
  });

  it("a masked amount is said to be masked; a stored text or fraction is not taken for cents", () => {
    const masked = redactJson({ amount_cents: 24_000 }, ["$.amount_cents"]).value;
    expect(storedAmount(masked)).toEqual({ state: "masked", path: "$.amount_cents" });
    expect(storedAmount({ amount_cents: "240.00" })).toEqual({ state: "unreadable", path: "$.amount_cents" });
    expect(storedAmount({ amount_cents: 12.5 })).toEqual({ state: "unreadable", path: "$.amount_cents" });
  });
});
