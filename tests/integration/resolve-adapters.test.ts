import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import * as z from "zod";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { DECLINED_CARD, startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { askProcessor } from "@/lib/resolve/ask-processor";
import { checkRecord } from "@/lib/resolve/check-record-with-processor";
import { connectTestDb } from "../helpers/db";
import { freePort } from "../helpers/free-port";

const newKey = () => randomBytes(32).toString("hex");

function httpConfig(baseUrl: string, extra: { headers?: Record<string, string>; timeout?: string } = {}) {
  return parseConfig(
    JSON.stringify({
      tools: {
        charge_card: {
          processor: {
            type: "http",
            baseUrl,
            headers: extra.headers ?? {},
            ...(extra.timeout ? { timeout: extra.timeout } : {}),
          },
        },
      },
      redact: ["$..card_last4"],
    }),
  );
}

describe("http adapter against the real demo processor", () => {
  let processor: DemoUpstream;
  beforeAll(async () => {
    processor = await startDemoProcessor({ hangMs: 10_000 });
  });
  afterAll(() => processor.stop());

  async function charge(key: string, card: string, headers: Record<string, string> = {}) {
    return fetch(`${processor.url}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ card, amount_cents: 24_000, reference: key }),
    });
  }

  it("succeeded → taken, with the processor's receipt and the raw evidence", async () => {
    const key = newKey();
    const charged = (await (await charge(key, "c_71")).json()) as { id: string };
    const result = await askProcessor(httpConfig(processor.url), { key, tool: "charge_card" });
    expect(result.outcome).toBe("taken");
    expect(result.receipt).toMatchObject({ id: charged.id, status: "succeeded", reference: key, amount_cents: 24_000 });
    expect(result.evidence).toMatchObject({
      adapter: "http",
      request: { method: "GET", url: `${processor.url}/references/${key}` },
      status: 200,
      body: { status: "succeeded" },
    });
    expect(result.evidence.ms).toBeGreaterThanOrEqual(0);
  });

  it("failed (a declined card) → not taken: the processor says it did not happen", async () => {
    const key = newKey();
    expect((await charge(key, DECLINED_CARD)).status).toBe(402);
    const result = await askProcessor(httpConfig(processor.url), { key, tool: "charge_card" });
    expect(result).toMatchObject({
      outcome: "not_taken",
      reason: expect.stringMatching(/declined or failed/),
      evidence: { status: 200, body: { status: "failed" } },
    });
    expect(result.receipt).toBeUndefined();
  });

  it("404 → not taken: no operation with this reference", async () => {
    const result = await askProcessor(httpConfig(processor.url), { key: newKey(), tool: "charge_card" });
    expect(result).toMatchObject({
      outcome: "not_taken",
      reason: "the processor has no operation with this reference",
      evidence: { status: 404 },
    });
  });

  it("pending → unknown: the processor has not settled it", async () => {
    const key = newKey();
    const inFlight = charge(key, "c_71", { "x-demo-latency-ms": "1500" });
    // The reference exists from the moment the side effect starts; wait until the processor knows it.
    await expect.poll(async () => (await fetch(`${processor.url}/references/${key}`)).status).toBe(200);
    const result = await askProcessor(httpConfig(processor.url), { key, tool: "charge_card" });
    expect(result).toMatchObject({
      outcome: "unknown",
      reason: expect.stringMatching(/not settled.*pending/),
      evidence: { status: 200, body: { status: "pending" } },
    });
    await inFlight;
  });

  it("503 → unknown, with the status and body kept", async () => {
    const result = await askProcessor(httpConfig(processor.url, { headers: { "x-demo-fault": "failure" } }), {
      key: newKey(),
      tool: "charge_card",
    });
    expect(result).toMatchObject({
      outcome: "unknown",
      reason: "the processor failed to answer (HTTP 503)",
      evidence: { status: 503, body: { error: { code: "service_unavailable" } } },
    });
    // Header names are evidence; their values may be secrets and are not kept.
    expect(result.evidence.request).toMatchObject({ headers: ["x-demo-fault"] });
  });

  it("no answer within the tool's timeout → unknown, well before the processor would answer", async () => {
    const started = Date.now();
    const result = await askProcessor(
      httpConfig(processor.url, { headers: { "x-demo-fault": "timeout" }, timeout: "300ms" }),
      { key: newKey(), tool: "charge_card" },
    );
    expect(result).toMatchObject({
      outcome: "unknown",
      reason: "the processor could not be asked: no answer within 0.3 s",
      evidence: { status: null },
    });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("connection refused → unknown, saying so", async () => {
    const port = await freePort();
    const result = await askProcessor(httpConfig(`http://127.0.0.1:${port}`), { key: newKey(), tool: "charge_card" });
    expect(result).toMatchObject({
      outcome: "unknown",
      evidence: { status: null, error: expect.stringMatching(/ECONNREFUSED/) },
    });
  });

  it("an HTML 404 (a proxy, a wrong baseUrl) is unknown, never 'not taken'", async () => {
    const server = createServer((_req, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<html><body>Not Found</body></html>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const result = await askProcessor(httpConfig(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), {
        key: newKey(),
        tool: "charge_card",
      });
      expect(result).toMatchObject({
        outcome: "unknown",
        reason: expect.stringMatching(/check baseUrl/),
        evidence: { status: 404 },
      });
    } finally {
      server.close();
    }
  });

  it("a tool with no processor configured, or no tool recorded, is unknown with the reason", async () => {
    const config = httpConfig(processor.url);
    expect(await askProcessor(config, { key: newKey(), tool: "create_shipment" })).toMatchObject({
      outcome: "unknown",
      reason: "no processor configured for tool create_shipment",
      evidence: { adapter: "none" },
    });
    expect((await askProcessor(config, { key: newKey(), tool: null })).reason).toMatch(/did not record which tool/);
  });

  describe("checkRecord: the read-only check behind the API", () => {
    const db = connectTestDb();
    const tenant = `ra-${randomBytes(3).toString("hex")}`;
    const viewer: Actor = { kind: "user", id: "v", name: "viewer@test", displayName: "v", role: "viewer", tenants: [] };
    const otherTenantOnly: Actor = { ...viewer, tenants: [`${tenant}-other`] };

    it("asks the processor, redacts the receipt for a viewer, and writes nothing", async () => {
      const key = newKey();
      await charge(key, "c_1234");
      const row = await db.idempotency.create({
        data: { key, tenant, tool: "charge_card", status: "in_progress", createdAt: new Date(Date.now() - 3_600_000) },
      });
      const before = { row, audit: await db.auditLog.count(), events: await db.idempotencyEvent.count() };

      const result = await checkRecord(db, httpConfig(processor.url), viewer, key);
      expect(result).toMatchObject({
        key,
        ref: key.slice(0, 12),
        status: "in_progress",
        check: { outcome: "taken", receipt: { card_last4: "[redacted]" } },
        redactedPaths: ["$['card_last4']", "$['receipt']['card_last4']"],
      });
      expect(await checkRecord(db, httpConfig(processor.url), otherTenantOnly, key)).toBeNull();

      expect(await db.idempotency.findUnique({ where: { key } })).toEqual(before.row);
      expect(await db.auditLog.count()).toBe(before.audit);
      expect(await db.idempotencyEvent.count()).toBe(before.events);
    });
  });
});

/** A tiny real MCP server: status tools that answer from a map, one that is slow, one that takes an order id. */
async function startStatusServer(
  outcomes: Map<string, unknown>,
): Promise<{ url: string; calls: unknown[]; stop(): Promise<void> }> {
  const calls: unknown[] = [];
  function build() {
    const server = new McpServer({ name: "status-test", version: "1.0.0" });
    server.registerTool("get_charge_status", { inputSchema: { ref: z.string() } }, async ({ ref }) => {
      calls.push({ tool: "get_charge_status", ref });
      const outcome = outcomes.get(ref);
      if (outcome === undefined)
        return { content: [{ type: "text", text: `No operation with ref ${ref} for this account.` }], isError: true };
      const body = { ref, processor: outcome };
      return { content: [{ type: "text", text: JSON.stringify(body) }], structuredContent: body };
    });
    server.registerTool("get_payment_by_key", { inputSchema: { key: z.string() } }, async ({ key }) => {
      calls.push({ tool: "get_payment_by_key", key });
      // Text only, no structured content: the adapter reads JSON from the text.
      return {
        content: [{ type: "text", text: JSON.stringify({ status: "succeeded", receipt: { id: "py_1", key } }) }],
      };
    });
    server.registerTool("slow_status", { inputSchema: { key: z.string() } }, async () => {
      await new Promise((r) => setTimeout(r, 3_000));
      return { content: [{ type: "text", text: "{}" }] };
    });
    server.registerTool("get_shipment_status", { inputSchema: { order_id: z.string() } }, async () => ({
      content: [{ type: "text", text: "{}" }],
    }));
    return server;
  }
  const http: Server = createServer(async (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

describe("mcp-tool adapter against a real MCP server over Streamable HTTP", () => {
  const outcomes = new Map<string, unknown>();
  let server: Awaited<ReturnType<typeof startStatusServer>>;
  beforeAll(async () => {
    server = await startStatusServer(outcomes);
  });
  afterAll(() => server.stop());

  const config = (tool: string, timeout?: string) =>
    parseConfig(
      JSON.stringify({
        tools: {
          charge_card: { processor: { type: "mcp-tool", server: "shop", tool, ...(timeout ? { timeout } : {}) } },
        },
        mcpServers: [{ name: "shop", transport: "http", url: server.url }],
      }),
    );

  it("calls the status tool with the ref and reads the processor's word: succeeded → taken", async () => {
    const key = newKey();
    outcomes.set(key.slice(0, 12), { status: "succeeded", receipt: { id: "ch_9", amount_cents: 500 } });
    const result = await askProcessor(config("get_charge_status"), { key, tool: "charge_card" });
    expect(result).toMatchObject({
      outcome: "taken",
      receipt: { id: "ch_9" },
      evidence: {
        adapter: "mcp-tool",
        status: "ok",
        request: { server: "shop", tool: "get_charge_status", arguments: { ref: key.slice(0, 12) } },
      },
    });
    expect(server.calls).toContainEqual({ tool: "get_charge_status", ref: key.slice(0, 12) });
  });

  it("not_found and failed → not taken; pending → unknown", async () => {
    const [notFound, failed, pending] = [newKey(), newKey(), newKey()];
    outcomes.set(notFound.slice(0, 12), { status: "not_found" });
    outcomes.set(failed.slice(0, 12), { status: "failed", receipt: { error: "card_declined" } });
    outcomes.set(pending.slice(0, 12), { status: "pending" });
    expect((await askProcessor(config("get_charge_status"), { key: notFound, tool: "charge_card" })).outcome).toBe(
      "not_taken",
    );
    expect((await askProcessor(config("get_charge_status"), { key: failed, tool: "charge_card" })).outcome).toBe(
      "not_taken",
    );
    expect((await askProcessor(config("get_charge_status"), { key: pending, tool: "charge_card" })).outcome).toBe(
      "unknown",
    );
  });

  it("passes the full key to a tool that takes one, and reads JSON from text content", async () => {
    const key = newKey();
    const result = await askProcessor(config("get_payment_by_key"), { key, tool: "charge_card" });
    expect(result).toMatchObject({ outcome: "taken", receipt: { id: "py_1", key } });
  });

  it("an error result → unknown, with the tool's words", async () => {
    const result = await askProcessor(config("get_charge_status"), { key: newKey(), tool: "charge_card" });
    expect(result).toMatchObject({
      outcome: "unknown",
      reason: expect.stringMatching(/answered with an error: No operation with ref/),
      evidence: { status: "isError" },
    });
  });

  it("a timeout → unknown, within the tool's timeout", async () => {
    const started = Date.now();
    const result = await askProcessor(config("slow_status", "500ms"), { key: newKey(), tool: "charge_card" });
    expect(result).toMatchObject({
      outcome: "unknown",
      reason: expect.stringMatching(/did not answer: no answer within 0.5 s/),
    });
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it("a tool that is not listed, or takes neither key nor ref, is reported rather than called", async () => {
    expect((await askProcessor(config("get_refund_status"), { key: newKey(), tool: "charge_card" })).reason).toBe(
      "the MCP server shop lists no tool get_refund_status",
    );
    const before = server.calls.length;
    const result = await askProcessor(config("get_shipment_status"), { key: newKey(), tool: "charge_card" });
    expect(result).toMatchObject({
      outcome: "unknown",
      reason: expect.stringMatching(/takes neither a key nor a ref \(its arguments: order_id\)/),
    });
    expect(server.calls.length).toBe(before);
  });

  it("an unreachable server → unknown", async () => {
    const port = await freePort();
    const unreachable = parseConfig(
      JSON.stringify({
        tools: { charge_card: { processor: { type: "mcp-tool", server: "gone", tool: "get_charge_status" } } },
        mcpServers: [{ name: "gone", transport: "http", url: `http://127.0.0.1:${port}/mcp` }],
      }),
    );
    const result = await askProcessor(unreachable, { key: newKey(), tool: "charge_card" });
    expect(result).toMatchObject({ outcome: "unknown", reason: expect.stringMatching(/could not be reached/) });
  });
});
