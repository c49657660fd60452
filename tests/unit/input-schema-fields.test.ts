import { describe, expect, it } from "vitest";
import { argumentsSkeleton, schemaFields } from "@/lib/annotations/input-schema-fields";

// charge_card's schema as the demo's MCP server lists it (zod → JSON Schema), with a few extras.
const chargeCard = {
  type: "object",
  properties: {
    note: { type: ["string", "null"], description: "free text" },
    card: { type: "string", description: "the card token", examples: ["c_4242"] },
    amount_cents: { type: "integer", minimum: 1 },
    currency: { type: "string", enum: ["usd", "eur"] },
    capture: { type: "boolean", default: true },
  },
  required: ["card", "amount_cents", "currency", "capture"],
};

describe("a tool's input schema, for the Verify dialog", () => {
  it("lists the top-level fields, required first, with type, description and allowed values", () => {
    expect(schemaFields(chargeCard)).toEqual([
      { name: "card", type: "string", required: true, description: "the card token", allowed: null },
      { name: "amount_cents", type: "integer", required: true, description: null, allowed: null },
      { name: "currency", type: "string", required: true, description: null, allowed: ['"usd"', '"eur"'] },
      { name: "capture", type: "boolean", required: true, description: null, allowed: null },
      { name: "note", type: "string | null", required: false, description: "free text", allowed: null },
    ]);
  });

  it("starts the arguments from the schema's own values, else an empty value of the type", () => {
    expect(argumentsSkeleton(chargeCard)).toEqual({ card: "c_4242", amount_cents: 0, currency: "usd", capture: true });
  });

  it("has nothing to say about a schema it does not understand", () => {
    for (const schema of [null, "x", [], {}, { type: "object" }, { properties: [] }]) {
      expect(schemaFields(schema)).toEqual([]);
      expect(argumentsSkeleton(schema)).toEqual({});
    }
    expect(schemaFields({ properties: { a: 1 }, required: ["a", 2] })).toEqual([
      { name: "a", type: null, required: true, description: null, allowed: null },
    ]);
    expect(argumentsSkeleton({ properties: { a: 1 }, required: ["a"] })).toEqual({ a: null });
    expect(schemaFields({ type: "object" })).toEqual([]);
  });
});
