import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config/load";
import { RESERVED_SEARCH_LABELS } from "@/lib/config/searchable-fields";
import { searchSpecs } from "@/lib/config/search-specs";
import { maskedValueClass } from "@/lib/privacy/masked-value";
import { EXPORT_PARAMS, LIST_PARAMS } from "@/lib/records/list-filters";
import { looksSearchable, searchableCandidates } from "@/lib/search/searchable-token";

// tools.<tool>.search (issue #28 §1–2): what the config refuses at load, naming the path and the
// rule, and which values a search refuses to query.
const load = (config: unknown) => () => parseConfig(JSON.stringify(config));
const search = (fields: Record<string, string>, extra: object = {}) =>
  load({ ...extra, tools: { charge_card: { search: fields } } });

describe("searchable fields in idem.config.json", () => {
  it("takes simple paths, and one label on two tools", () => {
    const config = parseConfig(
      JSON.stringify({
        tools: {
          charge_card: { search: { receipt: "$.id", first: "$.charges[0].id" } },
          refund_charge: { search: { receipt: "$.charge_id" } },
        },
      }),
    );
    expect(searchSpecs(config).map((s) => [s.tool, s.label, s.expression, s.indexName])).toEqual([
      ["charge_card", "first", "(response #>> '{charges,0,id}'::text[])", "idem_search_charge_card_first"],
      ["charge_card", "receipt", "(response #>> '{id}'::text[])", "idem_search_charge_card_receipt"],
      ["refund_charge", "receipt", "(response #>> '{charge_id}'::text[])", "idem_search_refund_charge_receipt"],
    ]);
  });

  it("refuses a redacted path, naming the path and the rule — defaults, ancestors and wildcards included", () => {
    expect(search({ receipt: "$.card.last4" })).toThrow(
      "tools.charge_card.search.receipt: $.card.last4 is redacted (redact rule $..card): a masked value cannot be searchable",
    );
    expect(search({ contact: "$.customer.email" })).toThrow("(redact rule $..email)");
    expect(search({ ship: "$.orders[2].shipping_address" })).toThrow("(redact rule $..shipping_address)");
    expect(search({ id: "$.customer.id" }, { redact: ["$.customer"] })).toThrow("(redact rule $.customer)");
    expect(search({ id: "$.customer.id" }, { redact: ["$.*.id"] })).toThrow("(redact rule $.*.id)");
    expect(search({ id: "$.items[0].sku" }, { redact: ["$.items[*]"] })).toThrow("(redact rule $.items[*])");
    // Not redacted: a sibling of a redacted field, or a path only a prefix of a redacted name.
    expect(search({ id: "$.card_last4" })).not.toThrow();
    expect(search({ id: "$.customer.id" }, { redact: ["$.customer.email"] })).not.toThrow();
  });

  it("refuses a path that is not simple, naming it", () => {
    for (const path of ["$..id", "$.*", "$.a[*].b", "$.a[?(@.x)]", "$['id']", "id", "$", "$.a[0:2]", "$.a-b"])
      expect(search({ receipt: path }), path).toThrow(
        `tools.charge_card.search.receipt: ${JSON.stringify(path)} is not a simple JSONPath`,
      );
  });

  it("refuses a bad label and one the records list takes as its own parameter", () => {
    expect(search({ Receipt: "$.id" })).toThrow(
      'tools.charge_card.search.Receipt: "Receipt": a search label is a lower-case name',
    );
    expect(search({ "order-id": "$.id" })).toThrow("a search label is a lower-case name");
    expect(search({ ["x".repeat(32)]: "$.id" })).toThrow("a search label is a lower-case name");
    expect(search({ tenant: "$.id" })).toThrow(
      `tools.charge_card.search.tenant: "tenant" is one of the records list's own parameters`,
    );
    // The list's and the export's parameters are all reserved.
    for (const param of [...LIST_PARAMS, ...EXPORT_PARAMS]) expect(RESERVED_SEARCH_LABELS).toContain(param);
  });
});

describe("values a search never queries", () => {
  it("knows e-mail addresses and Luhn-valid card numbers, by the masking's own detectors", () => {
    expect(maskedValueClass("someone@example.com")).toBe("email");
    expect(maskedValueClass("to:someone@example.com")).toBe("email");
    expect(maskedValueClass("4242424242424242")).toBe("card_number");
    expect(maskedValueClass("4242-4242-4242-4242")).toBe("card_number");
    expect(maskedValueClass("4242424242424241")).toBeNull(); // fails Luhn
    expect(maskedValueClass("ch_3f9a1c2b7d4e5f60718293a4")).toBeNull();
    expect(maskedValueClass("1Z9F3A0B1C2D3E4F5A")).toBeNull();
  });

  it("picks id-like tokens from pasted text, not words, refs or keys", () => {
    expect(
      searchableCandidates(
        "Your charge ch_3Mq2xAbc9 failed (ref 3484c25554eb). Tracking: 1Z9F3A0B1C2D3E4F5A. Order A-1234, thanks!",
      ),
    ).toEqual(["ch_3Mq2xAbc9", "1Z9F3A0B1C2D3E4F5A", "A-1234"]);
    expect(looksSearchable("charge")).toBe(false);
    expect(looksSearchable("a1")).toBe(false);
    expect(looksSearchable("3484c25554eb")).toBe(false);
    expect(looksSearchable("f".repeat(64))).toBe(false);
    expect(looksSearchable("re_12ab")).toBe(true);
  });
});
