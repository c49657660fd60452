import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import * as z from "zod";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  argumentsJsonOf,
  argumentsMismatchMessage,
  canonicalPythonJson,
  deriveKey,
  inFlightMessage,
  outcomeUnknownMessage,
} from "idem-guard";
import { OutcomeUnknownError, registerIdempotentTool } from "idem-guard/mcp";
import { startCountingUpstream, type CountingUpstream } from "../helpers/counting-upstream";
import { midBucketClock } from "../helpers/mid-bucket-clock";

type Result = { isError?: boolean; content: { type: string; text?: string }[]; _meta?: Record<string, unknown> };

// idem-guard/mcp through the real SDK (client and McpServer linked in memory), against the real
// table and a counting upstream: the reference text's double-call test, then the other outcomes.
describe("registerIdempotentTool", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 6 });
  const tenant = `t_gmcp_${randomBytes(4).toString("hex")}`;
  let upstream: CountingUpstream;
  let client: Client;
  // A repeat derives its first call's key (CI once saw the wall clock's bucket end between them): see the helper.
  const wallPaced = midBucketClock();
  let clock = wallPaced;
  let timeoutNext = false;
  /** The keys ship_order's handler ran for: its side effects. */
  const shipped: string[] = [];

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
      async ({ key }) => {
        shipped.push(key);
        return { tracking: `trk_${key.slice(0, 6)}` };
      },
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
    clock = wallPaced;
    expect(later._meta?.["idem-guard/outcome"]).toBe("replayed");
    expect(text(later)).toBe(text(first));
  });

  /** The key and hash the guard derives for a ship_order call (a business key: no bucket). */
  const shipKey = (args: { order_id: string; service: string }) =>
    deriveKey({
      tenant,
      subject: "user_42",
      tool: "ship_order",
      argumentsJson: argumentsJsonOf(args),
      at: new Date(),
      businessKey: `order:${args.order_id}`,
    });
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

  it("a row holding the business key with other arguments is refused, never replayed, and nothing runs", async () => {
    // What the key finds when an operation under this order id was recorded with other arguments
    // (another writer, an earlier deploy): same key, another arguments_sha256.
    const args = { order_id: "o_7", service: "express" };
    const { key, ref, argumentsSha256 } = shipKey(args);
    const stored = sha256('{"order_id":"o_7","service":"ground"}');
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, response, arguments_sha256, created_at, updated_at)
       VALUES ($1, $2, 'user_42', 'ship_order', 'completed', '{"tracking": "trk_ground"}', $3, now(), now())`,
      [key, tenant, stored],
    );
    const before = shipped.length;

    const result = await call("ship_order", args);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(argumentsMismatchMessage("A charge", ref, "get_charge_status"));
    expect(text(result)).not.toContain("trk_ground");
    expect(result._meta).toEqual({ "idem-guard/outcome": "arguments_mismatch", "idem-guard/ref": ref });
    expect(shipped.length - before).toBe(0);

    const { rows } = await pool.query(`SELECT status, response, arguments_sha256 FROM idempotency WHERE key = $1`, [
      key,
    ]);
    expect(rows).toEqual([{ status: "completed", response: { tracking: "trk_ground" }, arguments_sha256: stored }]);
    const events = await pool.query(`SELECT kind, tenant, tool, detail, client FROM idempotency_event WHERE key = $1`, [
      key,
    ]);
    expect(events.rows).toEqual([
      {
        kind: "arguments_mismatch",
        tenant,
        tool: "ship_order",
        detail: { stored, call: argumentsSha256 },
        client: "guard-mcp-test 1.2.3",
      },
    ]);
    expect(argumentsSha256).toBe(sha256('{"order_id":"o_7","service":"express"}'));

    // A claim still in flight under that key is refused the same way, not reported as "these exact details".
    await pool.query(`UPDATE idempotency SET status = 'in_progress', response = NULL WHERE key = $1`, [key]);
    const again = await call("ship_order", args);
    expect(again._meta?.["idem-guard/outcome"]).toBe("arguments_mismatch");
    expect(text(again)).toBe(text(result));
    expect(shipped.length - before).toBe(0);
  });

  it("a row whose writer recorded no arguments_sha256 (NULL) is replayed or reported in flight, as before", async () => {
    const args = { order_id: "o_8", service: "ground" };
    const { key, ref } = shipKey(args);
    await pool.query(
      `INSERT INTO idempotency (key, tenant, status, response) VALUES ($1, $2, 'completed', '{"tracking": "trk_theirs"}')`,
      [key, tenant],
    );
    const before = shipped.length;
    const replayed = await call("ship_order", args);
    expect(replayed.isError).toBeUndefined();
    expect(replayed._meta?.["idem-guard/outcome"]).toBe("replayed");
    expect(JSON.parse(text(replayed))).toEqual({ tracking: "trk_theirs" });

    await pool.query(`UPDATE idempotency SET status = 'in_progress', response = NULL WHERE key = $1`, [key]);
    const inFlight = await call("ship_order", args);
    expect(inFlight._meta?.["idem-guard/outcome"]).toBe("in_flight");
    expect(text(inFlight)).toBe(inFlightMessage("A charge", ref, "get_charge_status"));
    expect(shipped.length - before).toBe(0);
    const events = await pool.query(`SELECT kind FROM idempotency_event WHERE key = $1 ORDER BY id`, [key]);
    expect(events.rows).toEqual([{ kind: "replay_served" }, { kind: "in_flight_rejected" }]);
  });

  it("the same order id with the same arguments is still a replay (the hashes agree)", async () => {
    const args = { order_id: "o_9", service: "ground" };
    const first = await call("ship_order", args);
    const repeat = await call("ship_order", { service: "ground", order_id: "o_9" });
    expect(repeat._meta?.["idem-guard/outcome"]).toBe("replayed");
    expect(text(repeat)).toBe(text(first));
    const { rows } = await pool.query(`SELECT arguments_sha256 FROM idempotency WHERE key = $1`, [shipKey(args).key]);
    expect(rows).toEqual([{ arguments_sha256: shipKey(args).argumentsSha256 }]);
  });
});
