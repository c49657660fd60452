import { describe, expect, it } from "vitest";
import { REDACTED, redactJson } from "@/lib/privacy/redact";

describe("redactJson", () => {
  const receipt = {
    id: "ch_1",
    card: "c_71",
    customer: { email: "a@b.c", name: "Ann" },
    items: [{ card: "c_2" }, { sku: "x" }],
  };

  it("masks every match of each path, anywhere in the document, on a copy", () => {
    const { value, redactedPaths } = redactJson(receipt, ["$..card", "$..email"]);
    expect(value).toEqual({
      id: "ch_1",
      card: REDACTED,
      customer: { email: REDACTED, name: "Ann" },
      items: [{ card: REDACTED }, { sku: "x" }],
    });
    expect(redactedPaths).toEqual(["$['card']", "$['customer']['email']", "$['items'][0]['card']"]);
    expect(receipt.card).toBe("c_71");
  });

  it("leaves scalars, null and unmatched documents alone", () => {
    expect(redactJson("text", ["$..card"]).value).toBe("text");
    expect(redactJson(null, ["$..card"]).value).toBeNull();
    expect(redactJson({ a: 1 }, ["$..card"])).toEqual({ value: { a: 1 }, redactedPaths: [] });
  });

  it("masks a field called length or 0, never an array's length or a string's characters", () => {
    const document = { items: ["a", "b"], sku: "xyz", size: { length: 3, 0: "first" } };
    expect(redactJson(document, ["$..length", "$.sku[0]", "$.size[0]"]).value).toEqual({
      items: ["a", "b"],
      sku: "xyz",
      size: { length: REDACTED, 0: REDACTED },
    });
  });

  it("never evaluates script expressions from a path", () => {
    expect(() => redactJson({ a: [{ b: 1 }] }, ["$.a[?(@.b == 1)]"])).toThrow();
  });
});

describe("redactJson by value: e-mail addresses and card numbers under any key", () => {
  it("masks an address under a field no path names, inside text too, and reports where", () => {
    const { value, redactedPaths } = redactJson(
      { to: "user_24@globex.example", note: "sent to Ann <ann.lee+shop@mail.example.co.uk> at 10:02", id: "msg_1" },
      [],
    );
    expect(value).toEqual({ to: REDACTED, note: `sent to Ann <${REDACTED}> at 10:02`, id: "msg_1" });
    expect(redactedPaths).toEqual(["$['note']", "$['to']"]);
  });

  it.each([
    ["Visa, plain", "4242424242424242"],
    ["Visa, spaced", "4242 4242 4242 4242"],
    ["Amex, dashed", "3782-822463-10005"],
    ["19 digits", "6304000000000000000"],
    ["13 digits", "4222222222222"],
  ])("masks a Luhn-valid PAN under an odd name: %s", (_label, pan) => {
    const { value } = redactJson({ meta: { pmt_ref_x: pan, memo: `paid with ${pan} today` } }, []);
    expect(value).toEqual({ meta: { pmt_ref_x: REDACTED, memo: `paid with ${REDACTED} today` } });
  });

  it("masks a PAN stored as a JSON number", () => {
    expect(redactJson({ n: 4242424242424242 }, []).value).toEqual({ n: REDACTED });
  });

  it.each([
    ["fails Luhn", "4242424242424241"],
    ["12 digits", "424242424242"],
    ["20 digits", "42424242424242424242"],
    ["an epoch in ms", "1796119175071"],
    ["a hex key", "3f9a1c2b7d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4"],
    ["a phone-ish run", "+1 415 555 0100"],
    // A 64-hex key holds a 13+ digit run about one time in ten, and a tenth of those pass Luhn.
    ["a hex key with a Luhn-valid run inside", "ab4242424242424242cd3f9a1c2b7d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4"],
    ["a processor id ending in one", "ch_4242424242424242"],
  ])("leaves what is not a card number: %s", (_label, text) => {
    expect(redactJson({ x: text }, [])).toEqual({ value: { x: text }, redactedPaths: [] });
  });

  it("can be turned off per kind", () => {
    const doc = { to: "a@b.example", pan: "4242424242424242" };
    expect(redactJson(doc, { paths: [], values: { email: false, cardNumbers: true } }).value).toEqual({
      to: "a@b.example",
      pan: REDACTED,
    });
    expect(redactJson(doc, { paths: [], values: { email: false, cardNumbers: false } }).value).toEqual(doc);
  });

  it("masks a bare string value too", () => {
    expect(redactJson("to a@b.example", [])).toEqual({ value: `to ${REDACTED}`, redactedPaths: ["$"] });
  });
});
