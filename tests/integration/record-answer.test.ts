import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { DEFAULT_REDACT_PATHS } from "@/lib/config/schema";
import { startDemoMcpServer, type DemoMcpServer } from "@/tools/demo/mcp/demo-mcp-server";
import { startDemoCarrier } from "@/tools/demo/upstream/carrier-server";
import { DECLINED_CARD, startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import type { RecordAnswer } from "@/lib/records/answer-sentence";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// The record API's answer sentence, through the route handler, for calls made by the demo shop's
// real guarded tools against the demo processor, in simulated time 30 hours back (as the demo's
// history is): the sentence, its labelled times, and the receipt's own time being the charge's.
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-answer-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({
    tools: { charge_card: { stuckAfter: "5m" }, send_receipt_email: { businessKey: true } },
    redact: [...DEFAULT_REDACT_PATHS, "$..card_last4"],
  }),
);

const { GET: record } = await import("@/app/api/v1/records/[key]/route");

const system = systemAdmin("answer-test");
const run = randomBytes(4).toString("hex");
const tenant = `answer-${run}`;
const SIMULATED = new Date(Date.now() - 30 * 3600_000);

type Result = { isError?: boolean; _meta?: Record<string, unknown>; structuredContent?: Record<string, unknown> };
type Detail = { answer: RecordAnswer; record: { createdAt: string; updatedAt: string | null } };

describe("GET /api/v1/records/{key}: the answer first", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
  let processor: DemoUpstream;
  let carrier: DemoUpstream;
  let mcp: DemoMcpServer;
  let client: Client;
  let token: string;

  beforeAll(async () => {
    token = (await createToken(db, system, { name: `answer-${run}`, role: "viewer" })).token;
    processor = await startDemoProcessor();
    carrier = await startDemoCarrier();
    mcp = await startDemoMcpServer({
      db: pool,
      processorUrl: processor.url,
      carrierUrl: carrier.url,
      processorTimeoutMs: 2000,
      forcedTimeoutMs: 200,
    });
    client = new Client({ name: "record-answer-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url)));
  });
  afterAll(async () => {
    await client?.close();
    await mcp?.stop();
    await processor?.stop();
    await carrier?.stop();
    await pool.end();
  });

  let minute = 0;
  /** One call, a minute further on in simulated time; returns its key. */
  async function call(name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    minute += 1;
    const at = new Date(SIMULATED.getTime() + minute * 60_000).toISOString();
    const result = (await client.callTool({
      name,
      arguments: args,
      _meta: { "idem.demo/tenant": tenant, "idem.demo/subject": "user_1", "idem.demo/at": at, ...extra },
    })) as Result;
    const ref = String(result._meta?.["idem.demo/ref"]);
    const { rows } = await pool.query<{ key: string }>(
      `SELECT key FROM idempotency WHERE tenant = $1 AND left(key, 12) = $2`,
      [tenant, ref],
    );
    expect(rows).toHaveLength(1);
    return rows[0]!.key;
  }
  async function detail(key: string): Promise<Detail> {
    const response = await record(
      new Request(`http://console.test/api/v1/records/${key}`, { headers: { authorization: `Bearer ${token}` } }),
      { params: Promise.resolve({ key }) },
    );
    expect(response.status).toBe(200);
    return (await response.json()) as Detail;
  }
  const spoken = (iso: string) => `on ${iso.slice(0, 10)} at ${iso.slice(11, 19)} UTC`;

  it("a charge: once, its amount, the processor's receipt time (the charge's, not the seeding clock's)", async () => {
    const key = await call("charge_card", { card: "c_0071", amount_cents: 24_000 });
    const { answer, record: row } = await detail(key);
    const receiptTime = answer.times.find((t) => /processor's own time/.test(t.label))!.at!;
    // The demo processor stamps the call's simulated time: seconds after the claim, not 30 h later.
    expect(Math.abs(Date.parse(receiptTime) - Date.parse(row.createdAt))).toBeLessThan(5_000);
    const receiptId = answer.ids.find((id) => id.label === "receipt")!.value;
    expect(receiptId).toMatch(/^ch_/);
    expect(answer).toMatchObject({
      outcome: "done",
      sentence: `Charged once, 24,000 cents USD, ${spoken(receiptTime)} (receipt ${receiptId}).`,
      amount: { cents: 24_000, currency: "USD", text: "24,000 cents USD" },
    });
    expect(answer.times.map((t) => t.label.split(":")[0])).toEqual([
      "Claimed",
      "The processor's own time on the stored response (created_at)",
      "Completed",
      "The key stopped catching repeats", // 30 h back: its bucket ended long ago
    ]);
    // The masked card digits are on no line of the answer.
    expect(JSON.stringify(answer)).not.toContain("0071");
  });

  it("the demo processor refuses a bad x-demo-at by name and charges nothing", async () => {
    const before = processor.stats().sideEffects;
    const response = await fetch(`${processor.url}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-demo-at": "yesterday" },
      body: JSON.stringify({ card: "c_1", amount_cents: 100, reference: `bad-at-${run}` }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { message: expect.stringMatching(/^x-demo-at: /) } });
    expect(processor.stats().sideEffects).toBe(before);
  });

  it("a decline: not charged, with the processor's reason", async () => {
    const { answer } = await detail(await call("charge_card", { card: DECLINED_CARD, amount_cents: 500 }));
    expect(answer.outcome).toBe("refused");
    expect(answer.sentence).toMatch(
      /^Not charged: it was refused \(card_declined: the card was declined\), on .* UTC; a repeat of this call gets the same refusal\.$/,
    );
    expect(answer.amount).toBeNull();
  });

  it("a processor timeout: unknown, do not retry, ask again", async () => {
    const key = await call("charge_card", { card: "c_0072", amount_cents: 999 }, { "idem.demo/fault": "timeout" });
    const { answer, record: row } = await detail(key);
    expect(answer).toMatchObject({
      outcome: "unknown",
      sentence: `Unknown: the processor did not answer when the charge was requested ${spoken(row.createdAt)}; do not retry; ask again.`,
    });
    expect(answer.times.map((t) => t.label)).toContain("The writer reported no answer from the processor");
  });

  it("a receipt e-mail: its own noun, the address masked out of every part of the answer", async () => {
    const key = await call("send_receipt_email", { charge_id: `ch_${run}`, email: "ann@example.com" });
    const { answer } = await detail(key);
    expect(answer.sentence).toMatch(/^Receipt email sent once, on .* UTC\.$/);
    expect(JSON.stringify(answer)).not.toContain("ann@example.com");
    // A business key has no bucket end to name.
    expect(answer.times.some((t) => /stops catching repeats/.test(t.label))).toBe(false);
  });

  it("an honest writer (no tool, no updated_at): a true sentence, the completion time not recorded", async () => {
    const key = `${run}`.padEnd(64, "e");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, status, response, created_at) VALUES ($1, $2, 'completed', '{"ok":true}', $3)`,
      [key, tenant, SIMULATED],
    );
    const { answer } = await detail(key);
    expect(answer.sentence).toBe(`Completed once, requested ${spoken(SIMULATED.toISOString())}.`);
    expect(answer.times).toContainEqual({
      label: "Completed: time not recorded (this writer does not set updated_at)",
      at: null,
    });
  });
});
