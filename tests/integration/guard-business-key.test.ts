import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import * as z from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { afterAll, describe, expect, inject, it } from "vitest";
import { argumentsMismatchMessage, withIdempotency, type GuardResult } from "idem-guard";
import { registerIdempotentTool } from "idem-guard/mcp";

type Shipment = { tracking: string; service: string };
type Result = { isError?: boolean; content: { type: string; text?: string }[]; _meta?: Record<string, unknown> };

// A business key that names the operation (argumentsInKey: false), against the real table, rows the
// guard wrote itself: one shipment per order, whatever the second call's arguments say. And the
// default beside it, where the arguments are in the key and other arguments are another shipment.
describe("a business key that names the operation, against the real table", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
  afterAll(() => pool.end());
  const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
  const HEX64 = /^[0-9a-f]{64}$/;
  const EXPRESS = { order_id: "o_1", service: "express" };
  const STANDARD = { order_id: "o_1", service: "standard" };

  /** ship_order keyed by its order id; `shipped` lists the services its handler ran for; `gate` holds express calls. */
  function shipOrder(options: { argumentsInKey?: boolean }, gate?: Promise<void>) {
    const shipped: string[] = [];
    const guarded = withIdempotency(
      {
        db: pool,
        tool: "ship_order",
        statusTool: "get_shipment",
        noun: "A shipment",
        upstream: "carrier",
        businessKey: (args) => `order:${(args as { order_id: string }).order_id}`,
        ...options,
      },
      async ({ args, key }): Promise<Shipment> => {
        const { service } = args as { service: string };
        shipped.push(service);
        // Only the first (express) call waits: a second one wrongly run must not hang the test.
        if (service === "express") await gate;
        return { tracking: `trk_${key.slice(0, 8)}`, service };
      },
    );
    return { shipped, guarded };
  }
  const callOf = (tenant: string, args: object) => ({
    tenant,
    subject: "user_42",
    argumentsJson: JSON.stringify(args),
    client: "guard-business-key-test 1.0",
  });
  const rowOf = async (key: string) =>
    (await pool.query(`SELECT status, response, arguments_sha256 FROM idempotency WHERE key = $1`, [key])).rows;
  const eventsOf = async (key: string) =>
    (await pool.query(`SELECT kind, tool, detail, client FROM idempotency_event WHERE key = $1 ORDER BY id`, [key]))
      .rows;
  const executed = (result: GuardResult<Shipment>) => {
    if (result.outcome !== "executed") throw new Error(`expected executed, got ${JSON.stringify(result)}`);
    return result;
  };

  it("argumentsInKey: false: executed, then other arguments refused (nothing run), then the first replayed", async () => {
    const tenant = `t_gbk_${randomBytes(4).toString("hex")}`;
    const { shipped, guarded } = shipOrder({ argumentsInKey: false });

    const first = executed(await guarded(callOf(tenant, EXPRESS)));
    expect(first.response).toEqual({ tracking: `trk_${first.key.slice(0, 8)}`, service: "express" });
    expect(shipped).toEqual(["express"]);

    const other = await guarded(callOf(tenant, STANDARD));
    expect(other).toEqual({
      outcome: "arguments_mismatch",
      key: first.key,
      ref: first.ref,
      message: argumentsMismatchMessage("A shipment", first.ref, "get_shipment"),
    });
    expect(shipped).toEqual(["express"]); // the handler did not run
    // The row is the first call's, untouched.
    expect(await rowOf(first.key)).toEqual([
      {
        status: "completed",
        response: first.response,
        arguments_sha256: sha256('{"order_id":"o_1","service":"express"}'),
      },
    ]);
    const [mismatch, ...rest] = await eventsOf(first.key);
    expect(rest).toEqual([]);
    expect(mismatch).toMatchObject({
      kind: "arguments_mismatch",
      tool: "ship_order",
      client: "guard-business-key-test 1.0",
    });
    const { stored, call } = mismatch.detail as { stored: string; call: string };
    expect(Object.keys(mismatch.detail as object).sort()).toEqual(["call", "stored"]);
    expect(stored).toMatch(HEX64);
    expect(call).toMatch(HEX64);
    expect(call).not.toBe(stored);
    expect(stored).toBe(sha256('{"order_id":"o_1","service":"express"}'));
    expect(call).toBe(sha256('{"order_id":"o_1","service":"standard"}'));

    // The first arguments again (keys in another order): the stored shipment, no second one.
    const again = await guarded(callOf(tenant, { service: "express", order_id: "o_1" }));
    expect(again).toEqual({ outcome: "replayed", key: first.key, ref: first.ref, response: first.response });
    expect(shipped).toEqual(["express"]);
    expect((await eventsOf(first.key)).map((e) => e.kind)).toEqual(["arguments_mismatch", "replay_served"]);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM idempotency WHERE tenant = $1`, [tenant]);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it("argumentsInKey: false: other arguments while the first is still running are refused, not reported in flight", async () => {
    const tenant = `t_gbk_${randomBytes(4).toString("hex")}`;
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { shipped, guarded } = shipOrder({ argumentsInKey: false }, gate);
    const pending = guarded(callOf(tenant, EXPRESS));
    let other: GuardResult<Shipment>;
    try {
      await expect.poll(() => shipped.length).toBe(1);
      other = await guarded(callOf(tenant, STANDARD));
      expect(other.outcome).toBe("arguments_mismatch");
    } finally {
      open();
    }
    const first = executed(await pending);
    expect(other.key).toBe(first.key);
    expect(shipped).toEqual(["express"]);
  });

  it("the default (argumentsInKey true): other arguments under the same order id are another key, and execute", async () => {
    // Omitted and true alike; each under its own tenant, so the second does not replay the first.
    for (const options of [{}, { argumentsInKey: true }]) {
      const run = `t_gbk_${randomBytes(4).toString("hex")}`;
      const { shipped, guarded } = shipOrder(options);
      const first = executed(await guarded(callOf(run, EXPRESS)));
      const other = executed(await guarded(callOf(run, STANDARD)));
      // The difference: this is a second shipment of one order, under a second key.
      expect(other.key).not.toBe(first.key);
      expect(shipped).toEqual(["express", "standard"]);
      expect(await eventsOf(first.key)).toEqual([]);
      expect(await eventsOf(other.key)).toEqual([]);
      expect((await guarded(callOf(run, EXPRESS))).outcome).toBe("replayed");
    }
  });

  it("registerIdempotentTool passes argumentsInKey through: the MCP caller is refused with isError", async () => {
    const tenant = `t_gbk_${randomBytes(4).toString("hex")}`;
    const server = new McpServer({ name: "guarded-shop", version: "0.0.1" });
    const shipped: string[] = [];
    registerIdempotentTool(
      server,
      "ship_order",
      {
        description: "Ship an order once.",
        inputSchema: { order_id: z.string(), service: z.string() },
        statusTool: "get_shipment",
        noun: "A shipment",
        db: pool,
        tenant: () => tenant,
        subject: () => "user_42",
        businessKey: (args) => `order:${args.order_id}`,
        argumentsInKey: false,
      },
      async ({ args, key }) => {
        shipped.push(args.service);
        return { tracking: `trk_${key.slice(0, 8)}`, service: args.service };
      },
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "guard-business-key-test", version: "1.0" });
    await client.connect(clientSide);
    try {
      const call = async (args: object) =>
        (await client.callTool({ name: "ship_order", arguments: args as Record<string, unknown> })) as Result;
      const text = (result: Result) => result.content.map((c) => c.text ?? "").join("");

      const first = await call(EXPRESS);
      expect(first.isError).toBeUndefined();
      const other = await call(STANDARD);
      const ref = String(other._meta?.["idem-guard/ref"]);
      expect(other.isError).toBe(true);
      expect(other._meta?.["idem-guard/outcome"]).toBe("arguments_mismatch");
      expect(text(other)).toBe(argumentsMismatchMessage("A shipment", ref, "get_shipment"));
      const again = await call(EXPRESS);
      expect(again._meta?.["idem-guard/outcome"]).toBe("replayed");
      expect(JSON.parse(text(again))).toEqual(JSON.parse(text(first)));
      expect(shipped).toEqual(["express"]);
      const { rows } = await pool.query(
        `SELECT e.kind, e.detail FROM idempotency i JOIN idempotency_event e USING (key) WHERE i.tenant = $1 ORDER BY e.id`,
        [tenant],
      );
      expect(rows).toEqual([
        {
          kind: "arguments_mismatch",
          detail: {
            stored: sha256('{"order_id":"o_1","service":"express"}'),
            call: sha256('{"order_id":"o_1","service":"standard"}'),
          },
        },
        { kind: "replay_served", detail: null },
      ]);
    } finally {
      await client.close();
    }
  });
});
