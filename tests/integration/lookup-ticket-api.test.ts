import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// A customer's whole thread pasted at once: each ref answered in the order it appears, unknown
// ones said to be unknown, at most 50 looked up — through the route handler, on this run's database.
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-ticket-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({ tools: { charge_card: { stuckAfter: "5m", search: { receipt: "$.id" } } } }),
);

const { GET: lookup } = await import("@/app/api/v1/lookup/route");

const run = randomBytes(3).toString("hex");
const TENANT = `ticket-${run}`;
const system = systemAdmin("ticket");

type Answer = {
  token: string;
  kind: string;
  outcome: string;
  matches: { key: string; status: string; tool: string }[];
};
type Body = { answers: Answer[]; totalTokens: number; limit: number; matches: unknown[]; notSearched: object };

describe("/api/v1/lookup: a whole ticket at once", () => {
  const db = connectTestDb();
  let token: string;
  // Two calls of one customer: the first timed out and was claimed, the second found it in progress.
  const first = `${run}00aa01`.padEnd(12, "0") + "a".repeat(52);
  const second = `${run}00bb02`.padEnd(12, "0") + "b".repeat(52);
  const unknown = `${run}00cc03`.padEnd(12, "0");
  const charged = `${run}00dd04`.padEnd(12, "0") + "d".repeat(52);
  const receipt = `ch_3Mq${run}Zx9`;

  beforeAll(async () => {
    token = (await createToken(db, system, { name: `ticket-${run}`, role: "viewer" })).token;
    await db.idempotency.createMany({
      data: [
        {
          key: first,
          tenant: TENANT,
          tool: "charge_card",
          status: "completed",
          createdAt: new Date(Date.now() - 60_000),
        },
        { key: second, tenant: TENANT, tool: "charge_card", status: "in_progress" },
        {
          key: charged,
          tenant: TENANT,
          tool: "charge_card",
          status: "completed",
          response: { id: receipt, amount: 2400 },
        },
      ],
    });
  });

  const ask = async (text: string) => {
    const response = await lookup(
      new Request(`http://console.test/api/v1/lookup?q=${encodeURIComponent(text)}`, {
        headers: { authorization: `Bearer ${token}` },
      }),
      { params: Promise.resolve({} as Record<string, never>) },
    );
    expect(response.status).toBe(200);
    return (await response.json()) as Body;
  };

  it("answers two quoted refs as two answers, in the customer's order, not as one shared ref", async () => {
    const body = await ask(
      `First time: payment timed out, ref ${second.slice(0, 12)}. Second attempt: 'already in progress (ref ${first.slice(0, 12)})'. Am I charged twice?`,
    );
    expect(body.answers.map((a) => [a.token, a.kind, a.outcome])).toEqual([
      [second.slice(0, 12), "ref", "found"],
      [first.slice(0, 12), "ref", "found"],
    ]);
    expect(body.answers.map((a) => a.matches.map((m) => [m.key, m.status, m.tool]))).toEqual([
      [[second, "in_progress", "charge_card"]],
      [[first, "completed", "charge_card"]],
    ]);
  });

  it("says which one is unknown, keeps the order, and answers a key once with its own ref", async () => {
    const body = await ask(`ref ${unknown}, then key ${first} (ref ${first.slice(0, 12)})`);
    expect(body.answers.map((a) => [a.token, a.outcome])).toEqual([
      [unknown, "unknown"],
      [first, "found"],
    ]);
  });

  it("looks up at most 50 and says how many the text held", async () => {
    const many = Array.from({ length: 55 }, (_, i) => `${run}${i.toString(16).padStart(6, "0")}`);
    const body = await ask([first.slice(0, 12), ...many].join(" "));
    expect(body.limit).toBe(50);
    expect(body.totalTokens).toBe(56);
    expect(body.answers).toHaveLength(50);
    expect(body.answers[0]).toMatchObject({ token: first.slice(0, 12), outcome: "found" });
    expect(body.answers.slice(1).every((a) => a.outcome === "unknown")).toBe(true);
  });

  it("never looks up an e-mail address or a card number, and counts them", async () => {
    const body = await ask(`from bob@example.com card 4242424242424242 ref ${second.slice(0, 12)}`);
    expect(body.notSearched).toEqual({ emails: 1, cardNumbers: 1 });
    expect(body.answers.map((a) => a.token)).toEqual([second.slice(0, 12)]);
  });

  it("finds a record by its receipt id in free text, beside a ref, in order; an unknown id says so", async () => {
    const body = (await ask(
      `Your charge ${receipt} failed, then ref ${second.slice(0, 12)} hung. Order ORD-${run}99 never came.`,
    )) as Body & { unmatchedIds: string[] };
    expect(body.answers.map((a) => [a.token, a.kind, a.outcome, a.matches.map((m) => m.key)])).toEqual([
      [receipt, "field", "found", [charged]],
      [second.slice(0, 12), "ref", "found", [second]],
    ]);
    expect(body.unmatchedIds).toEqual([`ORD-${run}99`]);
  });
});
