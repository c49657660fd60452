import { randomBytes } from "node:crypto";
import pg from "pg";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startDemoMcpServer, type DemoMcpServer } from "@/tools/demo/mcp/demo-mcp-server";
import { startDemoCarrier } from "@/tools/demo/upstream/carrier-server";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";

type Result = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

// The demo shop through a real MCP client, with counting upstream stubs: the counters are the assertion.
describe("the demo MCP server", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 8 });
  const tenant = `t_mcp_${randomBytes(4).toString("hex")}`;
  let processor: DemoUpstream;
  let carrier: DemoUpstream;
  let mcp: DemoMcpServer;
  let client: Client;

  beforeAll(async () => {
    processor = await startDemoProcessor();
    carrier = await startDemoCarrier();
    mcp = await startDemoMcpServer({
      db: pool,
      processorUrl: processor.url,
      carrierUrl: carrier.url,
      processorTimeoutMs: 2000,
      forcedTimeoutMs: 200,
    });
    client = new Client({ name: "demo-mcp-server-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.stop();
    await processor?.stop();
    await carrier?.stop();
    await pool.end();
  });

  const meta = (extra: Record<string, unknown> = {}) => ({
    "idem.demo/tenant": tenant,
    "idem.demo/subject": "user_1",
    "idem.demo/at": new Date().toISOString(),
    ...extra,
  });
  const call = async (name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    (await client.callTool({ name, arguments: args, _meta: meta(extra) })) as Result;
  const text = (result: Result) => result.content.map((c) => c.text ?? "").join("");
  const refOf = (result: Result) => String(result._meta?.["idem.demo/ref"]);
  const rowFor = async (ref: string) =>
    (
      await pool.query<{ key: string; status: string; tool: string }>(
        `SELECT key, status, tool FROM idempotency WHERE tenant = $1 AND left(key, 12) = $2`,
        [tenant, ref],
      )
    ).rows;
  const processorSays = async (key: string) => {
    const response = await fetch(`${processor.url}/references/${key}`);
    return { status: response.status, body: (await response.json()) as { status?: string } };
  };

  it("lists exactly the six tools, with exactly their annotations", async () => {
    const { tools } = await client.listTools();
    const write = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };
    expect(Object.fromEntries(tools.map((t) => [t.name, t.annotations ?? null]))).toEqual({
      charge_card: write,
      refund_charge: write,
      create_shipment: write,
      send_receipt_email: null,
      get_charge_status: { readOnlyHint: true },
      get_shipment_status: { readOnlyHint: true },
    });
    expect(tools.find((t) => t.name === "send_receipt_email")).not.toHaveProperty("annotations");
  });

  it("charge_card twice in a row: the same receipt, one charge at the processor", async () => {
    const first = await call("charge_card", { card: "c_71", amount_cents: 24000 });
    // Same arguments in another order: one canonical form, one key.
    const second = await call("charge_card", { amount_cents: 24000, card: "c_71" });
    expect(first.isError).toBeFalsy();
    expect(second.isError).toBeFalsy();
    expect(JSON.parse(text(second))).toEqual(JSON.parse(text(first)));
    expect(second._meta?.["idem.demo/outcome"]).toBe("replayed");
    const [row] = await rowFor(refOf(first));
    expect(row).toMatchObject({ status: "completed", tool: "charge_card" });
    expect(processor.stats().sideEffectsByReference[row!.key]).toBe(1);
  });

  it("charge_card twice at once against a slow processor: one receipt, one in-flight message with the ref", async () => {
    processor.setFaults({ latencyMs: 300 });
    try {
      const results = await Promise.all([
        call("charge_card", { card: "c_72", amount_cents: 1299 }),
        call("charge_card", { card: "c_72", amount_cents: 1299 }),
      ]);
      const ok = results.filter((r) => !r.isError);
      const rejected = results.filter((r) => r.isError);
      expect(ok).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      const ref = refOf(ok[0]!);
      expect(text(rejected[0]!)).toBe(
        `A charge with these exact details is already in progress (ref ${ref}). Do not submit it again; call get_charge_status with this ref.`,
      );
      const [row] = await rowFor(ref);
      expect(processor.stats().sideEffectsByReference[row!.key]).toBe(1);
    } finally {
      processor.setFaults({ latencyMs: 0 });
    }
  });

  it("the shop's /_faults: GET says the hold; a bad field or body is refused by name and changes nothing", async () => {
    const faultsUrl = new URL("/_faults", mcp.url);
    const patch = (body: string) =>
      fetch(faultsUrl, { method: "PATCH", headers: { "content-type": "application/json" }, body });
    expect(await (await fetch(faultsUrl)).json()).toEqual({ holdForDuplicateMs: 0 });
    for (const [body, message] of [
      ['{"holdForDuplicateMs": -1}', "holdForDuplicateMs: expected whole milliseconds from 0 to 10000"],
      ['{"holdForDuplicateMs": 10001}', "holdForDuplicateMs: expected whole milliseconds from 0 to 10000"],
      ['{"holdForDuplicateMs": "5000"}', "holdForDuplicateMs: expected whole milliseconds from 0 to 10000"],
      ['{"latencyMs": 5}', "latencyMs: expected holdForDuplicateMs (the shop's only setting)"],
      ["not json", "request body is not valid JSON"],
    ]) {
      const refused = await patch(body!);
      expect(refused.status, body).toBe(400);
      expect(await refused.json()).toEqual({ error: { code: expect.any(String), message } });
    }
    const wrongMethod = await fetch(faultsUrl, { method: "DELETE" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET, PATCH");
    expect(await (await fetch(faultsUrl)).json(), "nothing refused changed the setting").toEqual({
      holdForDuplicateMs: 0,
    });
    expect(mcp.faults()).toEqual({ holdForDuplicateMs: 0 });
  });

  it("a shop-wide hold: against an instant processor, a repeat sent 1.5 s later still finds the first in flight, and releases it", async () => {
    const faultsUrl = new URL("/_faults", mcp.url);
    const set = await fetch(faultsUrl, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ holdForDuplicateMs: 8000 }),
    });
    expect(await set.json()).toEqual({ holdForDuplicateMs: 8000 });
    try {
      // One simulated time for both: a bucket's edge between them would make the repeat another call.
      const at = { "idem.demo/at": new Date().toISOString() };
      const started = performance.now();
      const first = call("charge_card", { card: "c_73", amount_cents: 1301 }, at).then((result) => ({
        result,
        ms: performance.now() - started,
      }));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const repeat = await call("charge_card", { amount_cents: 1301, card: "c_73" }, at);
      const { result, ms } = await first;
      expect(result.isError).toBeFalsy();
      expect(result._meta?.["idem.demo/outcome"]).toBe("executed");
      expect(repeat._meta?.["idem.demo/outcome"], text(repeat)).toBe("in_flight");
      // Released by the repeat's rejection, not by the hold's 8 s running out.
      expect(ms).toBeLessThan(6000);
      const [row] = await rowFor(refOf(result));
      expect(processor.stats().sideEffectsByReference[row!.key]).toBe(1);
    } finally {
      mcp.setFaults({ holdForDuplicateMs: 0 });
    }
  });

  it("create_shipment twice: two shipments at the carrier, nothing in the table", async () => {
    const order = `ord_${tenant}`;
    const before = carrier.stats().sideEffects;
    const args = { order_id: order, address: "12 Elm St, Springfield", service_level: "ground" };
    const [a, b] = [await call("create_shipment", args), await call("create_shipment", args)];
    expect(a.isError).toBeFalsy();
    expect(b.isError).toBeFalsy();
    expect(carrier.stats().sideEffects - before).toBe(2);
    expect((await call("get_shipment_status", { order_id: order })).structuredContent).toMatchObject({
      order_id: order,
      count: 2,
    });
    const rows = await pool.query(`SELECT 1 FROM idempotency WHERE tenant = $1 AND tool = 'create_shipment'`, [tenant]);
    expect(rows.rowCount).toBe(0);
  });

  it("a processor timeout: outcome unknown, the row stays in_progress, the processor took the charge", async () => {
    const result = await call("charge_card", { card: "c_73", amount_cents: 4999 }, { "idem.demo/fault": "timeout" });
    const ref = refOf(result);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(
      `may or may not have been taken; ref ${ref} is recorded. Call get_charge_status with this ref`,
    );
    const [row] = await rowFor(ref);
    expect(row?.status).toBe("in_progress");
    expect(await processorSays(row!.key)).toMatchObject({ status: 200, body: { status: "succeeded" } });
    const events = await pool.query(`SELECT kind FROM idempotency_event WHERE key = $1`, [row!.key]);
    expect(events.rows).toEqual([{ kind: "outcome_unknown" }]);
    // The status tool the message names finds the row by ref and asks the processor.
    const status = await call("get_charge_status", { ref });
    expect(status.structuredContent).toMatchObject({ ref, status: "in_progress", processor: { status: "succeeded" } });
  });

  it("a handler that crashes before calling the processor: a stuck row the processor never saw", async () => {
    const result = await call(
      "charge_card",
      { card: "c_74", amount_cents: 7900 },
      { "idem.demo/fault": "crash-before" },
    );
    expect(result.isError).toBe(true);
    const [row] = (
      await pool.query<{ key: string; status: string }>(
        `SELECT key, status FROM idempotency WHERE tenant = $1 AND subject = 'user_1' AND status = 'in_progress' ORDER BY created_at DESC LIMIT 1`,
        [tenant],
      )
    ).rows;
    expect(row?.status).toBe("in_progress");
    expect((await processorSays(row!.key)).status).toBe(404);
    // A retry is now refused as in flight, with the ref the customer can paste to support.
    const retry = await call("charge_card", { card: "c_74", amount_cents: 7900 });
    expect(text(retry)).toContain(`(ref ${row!.key.slice(0, 12)})`);
  });

  it("a crash after the processor took the charge: a stuck row the processor says succeeded", async () => {
    await call("charge_card", { card: "c_75", amount_cents: 8900 }, { "idem.demo/fault": "crash-after" });
    const retry = await call("charge_card", { card: "c_75", amount_cents: 8900 });
    expect(retry._meta?.["idem.demo/outcome"]).toBe("in_flight");
    const [row] = await rowFor(refOf(retry));
    expect(row?.status).toBe("in_progress");
    expect(await processorSays(row!.key)).toMatchObject({ status: 200, body: { status: "succeeded" } });
  });

  it("get_charge_status does not find another tenant's ref", async () => {
    const mine = await call("charge_card", { card: "c_76", amount_cents: 499 });
    const other = (await client.callTool({
      name: "get_charge_status",
      arguments: { ref: refOf(mine) },
      _meta: { "idem.demo/tenant": `${tenant}_other` },
    })) as Result;
    expect(other.isError).toBe(true);
    expect(text(other)).toContain("No operation with ref");
  });
});
