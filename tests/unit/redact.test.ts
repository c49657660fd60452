import { describe, expect, it } from "vitest";
import { REDACTED, redactJson } from "@/lib/records/redact";

describe("redactJson", () => {
  const receipt = { id: "ch_1", card: "c_71", customer: { email: "a@b.c", name: "Ann" }, items: [{ card: "c_2" }, { sku: "x" }] };

  it("masks every match of each path, anywhere in the document, on a copy", () => {
    const { value, redactedPaths } = redactJson(receipt, ["$..card", "$..email"]);
    expect(value).toEqual({ id: "ch_1", card: REDACTED, customer: { email: REDACTED, name: "Ann" }, items: [{ card: REDACTED }, { sku: "x" }] });
    expect(redactedPaths).toEqual(["$['card']", "$['customer']['email']", "$['items'][0]['card']"]);
    expect(receipt.card).toBe("c_71");
  });

  it("leaves scalars, null and unmatched documents alone", () => {
    expect(redactJson("text", ["$..card"]).value).toBe("text");
    expect(redactJson(null, ["$..card"]).value).toBeNull();
    expect(redactJson({ a: 1 }, ["$..card"])).toEqual({ value: { a: 1 }, redactedPaths: [] });
  });

  it("never evaluates script expressions from a path", () => {
    expect(() => redactJson({ a: [{ b: 1 }] }, ["$.a[?(@.b == 1)]"])).toThrow();
  });
});
