import { describe, expect, it } from "vitest";
import {
  argumentsMismatchMessage,
  deriveKey,
  EVENT_KINDS,
  inFlightMessage,
  withIdempotency,
  type GuardedCall,
  type Queryable,
} from "idem-guard";

// withIdempotency against a scripted database: the claim statement finds a prior row, and the
// guard decides from that one answer (no second round trip) between replay, in flight and refusal.
type Prior = { status: string; response: unknown; arguments_sha256: string | null };

function scriptedDb(prior: Prior) {
  const statements: { text: string; params: unknown[] }[] = [];
  const db: Queryable = {
    async query<R>(text: string, params: unknown[] = []) {
      statements.push({ text, params });
      if (text.includes("WITH claim AS"))
        return { rows: [{ claimed: false, ...prior }] as unknown as R[], rowCount: 1 };
      return { rows: [] as R[], rowCount: 1 };
    },
  };
  return { db, statements };
}

const at = new Date("2026-03-01T12:00:00Z");
const call: GuardedCall = {
  tenant: "acme",
  subject: "user_42",
  argumentsJson: '{"order_id":"o_1","service":"express"}',
  client: "host 1.0",
};
const derived = deriveKey({
  tenant: "acme",
  subject: "user_42",
  tool: "ship_order",
  argumentsJson: call.argumentsJson,
  at,
  businessKey: "order:o_1",
});
const OTHER = "a".repeat(64);

function guard(db: Queryable, ran: string[]) {
  return withIdempotency(
    {
      db,
      tool: "ship_order",
      statusTool: "get_shipment",
      noun: "A shipment",
      clock: () => at,
      businessKey: (args) => `order:${(args as { order_id: string }).order_id}`,
    },
    async ({ key }) => {
      ran.push(key);
      return { tracking: "trk_new" };
    },
  );
}

describe("withIdempotency and a prior row's arguments_sha256", () => {
  it("reads the prior row's hash in the claim statement itself", async () => {
    const { db, statements } = scriptedDb({ status: "completed", response: {}, arguments_sha256: null });
    await guard(db, [])(call);
    expect(statements[0]?.text).toMatch(/SELECT false, i\.status, i\.response, i\.arguments_sha256 FROM idempotency i/);
  });

  it.each(["completed", "in_progress"])("refuses a %s row with another hash: no handler, no replay", async (status) => {
    const { db, statements } = scriptedDb({ status, response: { tracking: "trk_first" }, arguments_sha256: OTHER });
    const ran: string[] = [];
    const result = await guard(db, ran)(call);
    expect(result).toEqual({
      outcome: "arguments_mismatch",
      key: derived.key,
      ref: derived.ref,
      message: argumentsMismatchMessage("A shipment", derived.ref, "get_shipment"),
    });
    expect(ran).toEqual([]);
    // The claim, then the event; nothing completed.
    expect(statements).toHaveLength(2);
    const [, event] = statements;
    expect(event?.text).toMatch(/INSERT INTO idempotency_event/);
    expect(event?.params).toEqual([
      derived.key,
      "acme",
      "ship_order",
      "arguments_mismatch",
      at,
      JSON.stringify({ stored: OTHER, call: derived.argumentsSha256 }),
      "host 1.0",
    ]);
  });

  it("replays a row with the same hash, and one whose writer recorded none (NULL)", async () => {
    for (const hash of [derived.argumentsSha256, null]) {
      const { db, statements } = scriptedDb({
        status: "completed",
        response: { tracking: "trk_first" },
        arguments_sha256: hash,
      });
      const ran: string[] = [];
      const result = await guard(db, ran)(call);
      expect(result).toEqual({
        outcome: "replayed",
        key: derived.key,
        ref: derived.ref,
        response: { tracking: "trk_first" },
      });
      expect(ran).toEqual([]);
      expect(statements[1]?.params?.[3]).toBe("replay_served");
    }
  });

  it("reports a NULL-hash claim in flight as before", async () => {
    const { db } = scriptedDb({ status: "in_progress", response: null, arguments_sha256: null });
    const result = await guard(db, [])(call);
    expect(result).toMatchObject({
      outcome: "in_flight",
      message: inFlightMessage("A shipment", derived.ref, "get_shipment"),
    });
  });

  it("refuses without an event when events are off", async () => {
    const { db, statements } = scriptedDb({ status: "completed", response: {}, arguments_sha256: OTHER });
    const result = await withIdempotency(
      { db, tool: "ship_order", statusTool: "get_shipment", clock: () => at, recordEvents: false },
      async () => "never",
    )(call);
    expect(result.outcome).toBe("arguments_mismatch");
    expect(statements).toHaveLength(1);
  });

  it("lists arguments_mismatch among the event kinds, after the three older ones", () => {
    expect(EVENT_KINDS).toEqual(["replay_served", "in_flight_rejected", "outcome_unknown", "arguments_mismatch"]);
  });

  it("says what happened with the ref, what not to do and what to do", () => {
    expect(argumentsMismatchMessage("A charge", "3f9a1c2b7d4e", "get_charge_status")).toBe(
      "A charge with this business key was already submitted with other arguments (ref 3f9a1c2b7d4e); this call was refused and not performed. Do not repeat it with the same business key; use a new one (such as a new order id) for a different operation, or call get_charge_status with this ref to see the first.",
    );
  });
});
