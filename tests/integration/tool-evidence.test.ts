import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { loadToolEvidence } from "@/lib/annotations/tool-evidence";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { connectTestDb } from "../helpers/db";

/**
 * The tools audit's evidence per tool against plain facts written here: claims, completions, the
 * claims still in flight after an outcome_unknown event (the unresolved count, which has a fast path
 * for the tools it is told about and a GROUP BY for any other), and the tenant limit.
 * Its own tenants and tool names, in 2032 (other files share the database).
 */
const db = connectTestDb();
const run = randomBytes(3).toString("hex");
const TA = `te-${run}-a`;
const TB = `te-${run}-b`;
const CHARGE = `charge_${run}`;
const SHIP = `ship_${run}`;
const OLD = `old_tool_${run}`;
const H0 = Date.parse("2032-05-01T00:00:00.000Z");
const M = 60_000;
const at = (ms: number) => new Date(H0 + ms);
const NOW = at(20 * 60 * M + 30 * M);
const SINCE = new Date(NOW.getTime() - 24 * 60 * M);
const config = parseConfig(JSON.stringify({ tools: {}, defaultStuckAfter: "10m" }));
const actor = (tenants: string[]): Actor => ({
  kind: "user",
  id: `te-${run}`,
  name: `te-${run}@test`,
  displayName: "evidence test",
  role: "viewer",
  tenants,
});

let serial = 0;
const key = () => createHash("sha256").update(`${run}|${serial++}`).digest("hex");

async function claim(
  tenant: string,
  tool: string,
  status: "in_progress" | "completed",
  createdAt: Date,
  unknownAt?: Date,
): Promise<void> {
  const k = key();
  await db.$executeRawUnsafe(
    `INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz)`,
    k,
    tenant,
    tool,
    status,
    createdAt.toISOString(),
    status === "completed" ? new Date(createdAt.getTime() + 400).toISOString() : null,
  );
  if (unknownAt) {
    // Two outcome_unknown events for the same claim: it is still one unresolved row.
    for (const offset of [0, 1_000]) {
      await db.$executeRawUnsafe(
        `INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES ($1, $2, $3, 'outcome_unknown', $4::timestamptz)`,
        k,
        tenant,
        tool,
        new Date(unknownAt.getTime() + offset).toISOString(),
      );
    }
  }
}

beforeAll(async () => {
  for (let i = 0; i < 6; i++) await claim(TA, CHARGE, "completed", at(10 * 60 * M + i * M));
  // Unresolved: in flight with an outcome_unknown event in the window (two in A, one in B).
  await claim(TA, CHARGE, "in_progress", at(12 * 60 * M), at(12 * 60 * M + 5_000));
  await claim(TA, CHARGE, "in_progress", at(19 * 60 * M), at(19 * 60 * M + 5_000));
  await claim(TB, CHARGE, "in_progress", at(13 * 60 * M), at(13 * 60 * M + 5_000));
  // Not unresolved: completed after its outcome_unknown; in flight with the event before the window.
  await claim(TA, CHARGE, "completed", at(14 * 60 * M), at(14 * 60 * M + 5_000));
  await claim(TA, SHIP, "in_progress", at(-10 * 60 * M), at(-10 * 60 * M + 5_000));
  await claim(TA, SHIP, "completed", at(15 * 60 * M));
  // A claim made before the window, of a tool with no claims in it, whose outcome went unknown inside it.
  await claim(TA, OLD, "in_progress", at(-6 * 60 * M), at(18 * 60 * M));
});

describe("tool evidence", () => {
  it("counts claims, completions and unresolved outcome_unknown rows per tool", async () => {
    const { byTool: evidence } = await loadToolEvidence(db, actor([TA, TB]), config, {
      since: SINCE,
      now: NOW,
      tools: [CHARGE, SHIP],
    });
    expect(evidence.get(CHARGE)).toMatchObject({
      records: 10,
      completed: 7,
      inProgress: 3,
      unresolvedOutcomeUnknown: 3,
      stuck: 3,
    });
    expect(evidence.get(SHIP)).toMatchObject({ records: 1, completed: 1, unresolvedOutcomeUnknown: 0 });
    // Not among the tools it was told about: found all the same.
    expect(evidence.get(OLD)).toMatchObject({ records: 0, unresolvedOutcomeUnknown: 1 });
  });

  it("the same when told about every tool (the per-tool fast path)", async () => {
    const { byTool: evidence } = await loadToolEvidence(db, actor([TA, TB]), config, {
      since: SINCE,
      now: NOW,
      tools: [CHARGE, SHIP, OLD],
    });
    expect(evidence.get(CHARGE)?.unresolvedOutcomeUnknown).toBe(3);
    expect(evidence.get(OLD)?.unresolvedOutcomeUnknown).toBe(1);
    expect(evidence.get(SHIP)?.unresolvedOutcomeUnknown).toBe(0);
  });

  it("a tenant-limited actor's evidence holds its tenant's rows only", async () => {
    const { byTool: onlyB } = await loadToolEvidence(db, actor([TB]), config, {
      since: SINCE,
      now: NOW,
      tools: [CHARGE, SHIP, OLD],
    });
    expect(onlyB.get(CHARGE)).toMatchObject({ records: 1, completed: 0, unresolvedOutcomeUnknown: 1 });
    expect(onlyB.get(OLD)?.unresolvedOutcomeUnknown ?? 0).toBe(0);
  });
});
