import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import * as z from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { canonicalPythonJson, inFlightMessage, outcomeUnknownMessage } from "idem-guard";
import { OutcomeUnknownError, registerIdempotentTool } from "idem-guard/mcp";
import { startCountingUpstream, type CountingUpstream } from "../helpers/counting-upstream";

type Result = { isError?: boolean; content: { type: string; text?: string }[]; _meta?: Record<string, unknown> };

// idem-guard/mcp through the real SDK (client and McpServer linked in memory), against the real
// table and a counting upstream: the reference text's double-call test, then the other outcomes.
describe("registerIdempotentTool", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 6 });
  const tenant = `t_gmcp_${randomBytes(4).toString("hex")}`;
  let upstream: CountingUpstream;
  let client: Client;
  let clock = () => new Date();
  let timeoutNext = false;

  beforeAll(async () => {
    upstream = await startCountingUpstream({ delayMs: 1_000 });
    const server = new McpServer({ name: "guarded-shop", version: "0.0.1" });
    const shared = {
      annotations: { readOnlyHint: false, openWorldHint: true },
      statusTool: "get_charge_status",
      noun: "A charge",
      upstream: "processor",
      db: pool,
      tenant: (extra: { authInfo?: AuthInfo }) => extra.authInfo?.clientId ?? "nobody",
      subject: (extra: { authInfo?: AuthInfo }) => String(extra.authInfo?.extra?.sub ?? "") || null,
      clock: () => clock(),
    };
    registerIdempotentTool(
      server,
      "charge_card",
      {
        ...shared,
        description: "Charge a card.",
        inputSchema: { card: z.string(), amount_cents: z.number().int().positive() },
      },
      async ({ key, args }) => {
        if (timeoutNext) {
          timeoutNext = false;
          throw new OutcomeUnknownError("processor timed out", 2_000);
        }
        const answer = await fetch(`${upstream.url}/charges`, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": key },
          body: JSON.stringify(args),
        });
        return (await answer.json()) as unknown;
      },
    );
    registerIdempotentTool(
      server,
      "ship_order",
      {
        ...shared,
        description: "Ship an order once.",
        inputSchema: { order_id: z.string(), service: z.string() },
        businessKey: (args) => `order:${args.order_id}`,
      },
      async ({ key }) => ({ tracking: `trk_${key.slice(0, 6)}` }),
    );
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    // What an authenticating transport does: every request carries the verified token's info.
    const send = clientSide.send.bind(clientSide);
    const auth: AuthInfo = { token: "t", clientId: tenant, scopes: [], extra: { sub: "user_42" } };
    clientSide.send = (message, options) => send(message, { ...options, authInfo: auth });
    await server.connect(serverSide);
    client = new Client({ name: "guard-mcp-test", version: "1.2.3" });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client?.close();
    await upstream?.close();
    await pool.end();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as Result;
  const text = (result: Result) => result.content.map((c) => c.text ?? "").join("");

  it("publishes idempotentHint: true beside the tool's other hints", async () => {
    const { tools } = await client.listTools();
    const charge = tools.find((t) => t.name === "charge_card");
    expect(charge?.annotations).toEqual({ readOnlyHint: false, openWorldHint: true, idempotentHint: true });
  });

  it("two concurrent calls: one side effect and one in-flight answer naming the ref; then the stored response", async () => {
    const args = { card: "c_71", amount_cents: 24_000 };
    const before = upstream.charges.length;
    const [a, b] = await Promise.all([call("charge_card", args), call("charge_card", args)]);
    expect(upstream.charges.length - before).toBe(1);
    const answers = [a, b];
    const receipt = answers.find((r) => !r.isError);
    const inFlight = answers.find((r) => r.isError);
    expect(receipt && inFlight).toBeTruthy();
    const ref = String(inFlight?._meta?.["idem-guard/ref"]);
    expect(text(inFlight!)).toBe(inFlightMessage("A charge", ref, "get_charge_status"));

    const repeat = await call("charge_card", { amount_cents: 24_000, card: "c_71" });
    expect(repeat.isError).toBeUndefined();
    expect(JSON.parse(text(repeat))).toEqual(JSON.parse(text(receipt!)));
    expect(upstream.charges.length - before).toBe(1);

    const { rows } = await pool.query(
      `SELECT key, tenant, subject, tool, status, arguments_sha256 FROM idempotency WHERE tenant = $1 AND tool = 'charge_card'`,
      [tenant],
    );
    expect(rows).toHaveLength(1);
    const canonical = canonicalPythonJson(JSON.stringify(args));
    expect(rows[0]).toMatchObject({
      subject: "user_42",
      status: "completed",
      arguments_sha256: createHash("sha256").update(canonical).digest("hex"),
    });
    expect(rows[0].key.startsWith(ref)).toBe(true);
    // The key went to the upstream as its own idempotency reference.
    expect(upstream.charges.at(-1)?.idempotencyKey).toBe(rows[0].key);
    const events = await pool.query(`SELECT kind, client FROM idempotency_event WHERE key = $1 ORDER BY id`, [
      rows[0].key,
    ]);
    expect(events.rows).toEqual([
      { kind: "in_flight_rejected", client: "guard-mcp-test 1.2.3" },
      { kind: "replay_served", client: "guard-mcp-test 1.2.3" },
    ]);
  });

  it("an OutcomeUnknownError leaves the claim in flight and says so, with the ref", async () => {
    timeoutNext = true;
    const result = await call("charge_card", { card: "c_99", amount_cents: 500 });
    const ref = String(result._meta?.["idem-guard/ref"]);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(outcomeUnknownMessage("processor", "A charge", ref, "get_charge_status", 2_000));
    const { rows } = await pool.query(
      `SELECT i.status, e.kind FROM idempotency i JOIN idempotency_event e USING (key) WHERE i.tenant = $1 AND i.key LIKE $2 || '%'`,
      [tenant, ref],
    );
    expect(rows).toEqual([{ status: "in_progress", kind: "outcome_unknown" }]);
  });

  it("a business key outlives the time bucket: the same order a day later is a repeat", async () => {
    clock = () => new Date("2026-03-01T12:00:00Z");
    const first = await call("ship_order", { order_id: "o_1", service: "ground" });
    clock = () => new Date("2026-03-02T12:00:00Z");
    const later = await call("ship_order", { order_id: "o_1", service: "ground" });
    clock = () => new Date();
    expect(later._meta?.["idem-guard/outcome"]).toBe("replayed");
    expect(text(later)).toBe(text(first));
  });
});
