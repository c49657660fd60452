import { describe, expect, it } from "vitest";
import { argumentsSkeleton, schemaFields } from "@/lib/annotations/input-schema-fields";

// charge_card's schema as the demo's MCP server lists it (zod → JSON Schema), with a few extras.
const chargeCard = {
  type: "object",
  properties: {
    note: { type: ["string", "null"], description: "free text" },
    card: { type: "string", description: "the card token", examples: ["c_4242"], minLength: 1, maxLength: 200 },
    amount_cents: { type: "integer", exclusiveMinimum: 0, maximum: 100000000 },
    order_id: { type: "string" },
    currency: { type: "string", enum: ["usd", "eur"] },
    capture: { type: "boolean", default: true },
  },
  required: ["order_id", "card", "amount_cents", "currency", "capture"],
};

describe("a tool's input schema, for the Verify dialog", () => {
  it("lists the top-level fields, required first, with type, description and allowed values", () => {
    expect(schemaFields(chargeCard)).toEqual([
      { name: "order_id", type: "string", required: true, description: null, allowed: null, constraints: [] },
      {
        name: "card",
        type: "string",
        required: true,
        description: "the card token",
        allowed: null,
        constraints: ["at least 1 character", "at most 200 characters"],
      },
      {
        name: "amount_cents",
        type: "integer",
        required: true,
        description: null,
        allowed: null,
        constraints: ["> 0", "≤ 100000000"],
      },
      {
        name: "currency",
        type: "string",
        required: true,
        description: null,
        allowed: ['"usd"', '"eur"'],
        constraints: [],
      },
      { name: "capture", type: "boolean", required: true, description: null, allowed: null, constraints: [] },
      {
        name: "note",
        type: "string | null",
        required: false,
        description: "free text",
        allowed: null,
        constraints: [],
      },
    ]);
  });

  it("starts the arguments from the schema's own values, else a placeholder that keeps its limits", () => {
    expect(argumentsSkeleton(chargeCard)).toEqual({
      args: { order_id: "", card: "c_4242", amount_cents: 1, currency: "usd", capture: true },
      placeholders: ["order_id", "amount_cents"],
    });
  });

  it("never fills a placeholder the schema shown refuses: the description's example, a format's sample, the least number allowed", () => {
    // The demo's charge_card as it lists it: "" and 0 were refused by its own minLength 1 and > 0 (issue #27).
    const demo = {
      type: "object",
      properties: {
        card: { type: "string", minLength: 1, maxLength: 200, description: "card token, e.g. c_71" },
        amount_cents: { type: "integer", exclusiveMinimum: 0, maximum: 100000000 },
      },
      required: ["card", "amount_cents"],
    };
    expect(argumentsSkeleton(demo)).toEqual({
      args: { card: "c_71", amount_cents: 1 },
      placeholders: ["card", "amount_cents"],
    });
    const limits = {
      properties: {
        code: { type: "string", minLength: 3, description: "e.g. toolong-example", maxLength: 5 },
        email: { type: "string", format: "email" },
        price: { type: "number", minimum: 2.25, multipleOf: 0.5 },
        debt: { type: "integer", maximum: -3 },
        grade: { type: "integer", exclusiveMinimum: 1.5 },
        iso: { type: "string", pattern: "^[A-Z]{3}$" },
      },
      required: ["code", "email", "price", "debt", "grade", "iso"],
    };
    expect(argumentsSkeleton(limits).args).toEqual({
      code: "xxx", // the description's example is longer than maxLength
      email: "someone@example.com",
      price: 2.5,
      debt: -3,
      grade: 2,
      iso: "", // a pattern it cannot fill: left empty, and named as a placeholder
    });
  });

  it("has nothing to say about a schema it does not understand", () => {
    for (const schema of [null, "x", [], {}, { type: "object" }, { properties: [] }]) {
      expect(schemaFields(schema)).toEqual([]);
      expect(argumentsSkeleton(schema)).toEqual({ args: {}, placeholders: [] });
    }
    expect(schemaFields({ properties: { a: 1 }, required: ["a", 2] })).toEqual([
      { name: "a", type: null, required: true, description: null, allowed: null, constraints: [] },
    ]);
    expect(argumentsSkeleton({ properties: { a: 1 }, required: ["a"] })).toEqual({
      args: { a: null },
      placeholders: ["a"],
    });
    expect(schemaFields({ type: "object" })).toEqual([]);
  });
});
