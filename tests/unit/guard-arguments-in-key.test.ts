import { createHash } from "node:crypto";
import * as z from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { deriveKey, KeyInputError, withIdempotency, type KeyInput, type Queryable } from "idem-guard";
import { registerIdempotentTool } from "idem-guard/mcp";

// argumentsInKey: false, where the business key alone names the operation (as a payment API's
// Idempotency-Key does). The guard against the real table: tests/integration/guard-business-key.test.ts.
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const at = new Date("2026-03-01T12:00:00Z"); // bucket 1969296
const express: KeyInput = {
  tenant: "acme",
  subject: "user_42",
  tool: "ship_order",
  argumentsJson: '{"order_id": "o_1", "service": "express"}',
  at,
  businessKey: "order:o_1",
};
const NEEDS_BUSINESS_KEY =
  "argumentsInKey: false needs a businessKey (without arguments or a business key, every call of the tool in a time bucket would share one key)";

describe("deriveKey with argumentsInKey: false", () => {
  it("hashes tenant|subject|tool|businessKey, without the canonical arguments", () => {
    const d = deriveKey({ ...express, argumentsInKey: false });
    expect(d).toEqual({
      scheme: "python-json",
      canonical: '{"order_id":"o_1","service":"express"}',
      material: "acme|user_42|ship_order|order:o_1",
      bucket: "order:o_1",
      key: sha256("acme|user_42|ship_order|order:o_1"),
      ref: sha256("acme|user_42|ship_order|order:o_1").slice(0, 12),
      // Still the hash of the canonical arguments: what tells the operation's calls apart.
      argumentsSha256: sha256('{"order_id":"o_1","service":"express"}'),
    });
  });

  it("gives other arguments, another time, window and scheme the same key, and another argumentsSha256", () => {
    const first = deriveKey({ ...express, argumentsInKey: false });
    const other = deriveKey({
      ...express,
      argumentsJson: '{"order_id": "o_1", "service": "standard"}',
      at: new Date("2027-01-01T00:00:00Z"),
      windowSeconds: 60,
      scheme: "jcs",
      argumentsInKey: false,
    });
    expect(other.key).toBe(first.key);
    expect(other.argumentsSha256).not.toBe(first.argumentsSha256);
    expect(other.argumentsSha256).toBe(sha256('{"order_id":"o_1","service":"standard"}'));
    // Another business key is another operation.
    expect(deriveKey({ ...express, businessKey: "order:o_2", argumentsInKey: false }).key).not.toBe(first.key);
  });

  it("writes a missing subject as Python's None, and hashes a non-ASCII business key as UTF-8", () => {
    const d = deriveKey({ ...express, subject: null, businessKey: "commande:é📦-заказ-1", argumentsInKey: false });
    expect(d.material).toBe("acme|None|ship_order|commande:é📦-заказ-1");
    expect(d.key).toBe(createHash("sha256").update(Buffer.from(d.material, "utf8")).digest("hex"));
  });

  it("leaves the default as it was: the arguments and the business key (true and omitted alike)", () => {
    const omitted = deriveKey(express);
    expect(omitted.material).toBe('acme|user_42|ship_order|{"order_id":"o_1","service":"express"}|order:o_1');
    expect(deriveKey({ ...express, argumentsInKey: true })).toEqual(omitted);
    expect(deriveKey({ ...express, argumentsInKey: false }).key).not.toBe(omitted.key);
    expect(deriveKey({ ...express, businessKey: undefined, argumentsInKey: true }).bucket).toBe("1969296");
  });

  it("refuses argumentsInKey: false without a business key, and a value that is not a boolean", () => {
    const { businessKey: _, ...noBusinessKey } = express;
    expect(() => deriveKey({ ...noBusinessKey, argumentsInKey: false })).toThrow(new KeyInputError(NEEDS_BUSINESS_KEY));
    expect(() => deriveKey({ ...noBusinessKey, argumentsInKey: false })).toThrow(KeyInputError);
    expect(() => deriveKey({ ...express, argumentsInKey: "false" as unknown as boolean })).toThrow(
      new KeyInputError('argumentsInKey: expected true or false (got "false")'),
    );
    // The empty business key is refused as before, whatever argumentsInKey says.
    expect(() => deriveKey({ ...express, businessKey: "", argumentsInKey: false })).toThrow(
      "businessKey: must not be empty",
    );
  });
});

describe("argumentsInKey in a guard's config", () => {
  const untouched: Queryable = {
    async query() {
      throw new Error("the database should not be reached");
    },
  };

  it("withIdempotency refuses argumentsInKey: false without businessKey when it is built", () => {
    expect(() =>
      withIdempotency({ db: untouched, tool: "ship_order", statusTool: "get_shipment", argumentsInKey: false }, () =>
        Promise.resolve("never"),
      ),
    ).toThrow(new KeyInputError(NEEDS_BUSINESS_KEY));
  });

  it("a call whose businessKey gives none is refused before the claim, the handler not run", async () => {
    const ran: string[] = [];
    const guarded = withIdempotency(
      {
        db: untouched,
        tool: "ship_order",
        statusTool: "get_shipment",
        businessKey: (args) => (args as { order_id?: string }).order_id,
        argumentsInKey: false,
      },
      async ({ key }) => {
        ran.push(key);
        return "shipped";
      },
    );
    await expect(guarded({ tenant: "acme", subject: null, argumentsJson: '{"service":"express"}' })).rejects.toThrow(
      new KeyInputError(NEEDS_BUSINESS_KEY),
    );
    expect(ran).toEqual([]);
  });

  it("registerIdempotentTool refuses argumentsInKey: false without businessKey when registering", () => {
    const server = new McpServer({ name: "t", version: "0" });
    const config = {
      description: "Ship an order once.",
      inputSchema: { order_id: z.string() },
      statusTool: "get_shipment",
      db: untouched,
      tenant: () => "acme",
      subject: () => null,
      argumentsInKey: false,
    };
    expect(() => registerIdempotentTool(server, "ship_order", config, async () => "never")).toThrow(
      new KeyInputError(NEEDS_BUSINESS_KEY),
    );
    // With a business key it registers.
    expect(() =>
      registerIdempotentTool(
        server,
        "ship_order",
        { ...config, businessKey: (args) => `order:${args.order_id}` },
        async () => "shipped",
      ),
    ).not.toThrow();
  });
});
