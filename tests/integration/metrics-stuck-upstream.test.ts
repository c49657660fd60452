import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config/load";
import type { Actor } from "@/lib/identity/actor";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { connectTestDb } from "../helpers/db";

/**
 * Two figures of the metrics against SQL written here: the stuck-claims series (a lower bound:
 * claims still in progress and claims the console resolved later; a claim its writer completed late
 * is the gap to the truth) and, per tool, what the upstream counted in its newest verify run that
 * read counts (tool_verification). Rows live in 2032 under this file's own tenant and tools.
 */
const db = connectTestDb();
const run = randomBytes(3).toString("hex");
const TENANT = `su-${run}`;
const STUCK_TOOL = `su_${run}_charge`;
const SHIP = `su_${run}_ship`;
const QUIET = `su_${run}_quiet`;
const T = (hhmm: string) => new Date(`2032-05-01T${hhmm}:00.000Z`);
const NOW = new Date("2032-05-01T12:00:30.000Z");
const key = (label: string) => createHash("sha256").update(`${run}|${label}`).digest("hex");
const config = parseConfig(
  JSON.stringify({ tools: { [STUCK_TOOL]: { stuckAfter: "10m" }, [SHIP]: { stuckAfter: "10m" }, [QUIET]: {} } }),
);
const ACTOR: Actor = {
  kind: "user",
  id: `su-${run}`,
  name: `su-${run}@test`,
  displayName: "stuck series test",
  role: "viewer",
  tenants: [TENANT],
};

const claim = (label: string, status: string, createdAt: Date, updatedAt: Date | null = null) =>
  db.$executeRawUnsafe(
    `INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    key(label),
    TENANT,
    STUCK_TOOL,
    status,
    createdAt,
    updatedAt,
  );

async function verification(finishedAt: Date, tool: string, verdict: string, upstream: unknown, calls: number) {
  const [row] = await db.$queryRawUnsafe<{ id: bigint }[]>(
    `INSERT INTO tool_verification (server, tool, listing_hash, arguments_hash, concurrency, verdict, step, summary, evidence, started_at, finished_at, verified_by)
     VALUES ('shop', $1, 'l', 'a', 3, $2, NULL, 's', $3::jsonb, $4, $4, 'test') RETURNING id`,
    tool,
    verdict,
    JSON.stringify({
      calls: Array.from({ length: calls }, () => ({ phase: "concurrent" })),
      checks: [],
      rows: [],
      upstream,
      hint: null,
    }),
    finishedAt,
  );
  return String(row!.id);
}

let newestCounted = "";

beforeAll(async () => {
  await claim("a", "in_progress", T("10:00")); // stuck at every step's end
  // Its twin, of the same tenant, tool and step: the statement groups claims, and a group counts each of them.
  await claim("a-twin", "in_progress", new Date(T("10:00").getTime() + 1_000));
  await claim("b", "in_progress", T("11:30")); // stuck after 11:40
  await claim("late", "completed", T("11:00"), T("11:30")); // its writer completed it late: stuck 11:10–11:30, not found
  await claim("fresh", "in_progress", T("11:58")); // never stuck in the window
  // A claim made at 11:00 that the console released at 11:50 (the row is gone; its audit snapshot stays).
  await db.$executeRawUnsafe(
    `INSERT INTO audit_log (at, actor, actor_role, action, key, tenant, before, after, reason)
     VALUES ($1, 'operator@test', 'operator', 'record.release', $2, $3, $4::jsonb, NULL, 'processor says no')`,
    T("11:50"),
    key("released"),
    TENANT,
    JSON.stringify({
      key: key("released"),
      tenant: TENANT,
      tool: STUCK_TOOL,
      status: "in_progress",
      createdAt: T("11:00").toISOString(),
      updatedAt: null,
    }),
  );
  const counted = { adapter: "mcp-tool shop/get_shipment_status", reference: null, detail: "2 shipments" };
  await verification(T("09:00"), SHIP, "verified", { ...counted, sideEffects: 1 }, 3);
  newestCounted = await verification(T("09:30"), SHIP, "failed", { ...counted, sideEffects: 2 }, 4);
  await verification(T("10:00"), SHIP, "inconclusive", { ...counted, sideEffects: null }, 4); // read no counts
  await verification(T("10:00"), QUIET, "verified", null, 3); // a tool with no upstream configured
});

/** Claims stuck at `t` by the definition itself, from every row (the truth the series may fall short of). */
async function stuckTruth(t: Date): Promise<{ exact: number; lateWriterCompletions: number }> {
  const [row] = await db.$queryRawUnsafe<{ exact: bigint; late: bigint }[]>(
    `WITH claims AS (
       SELECT created_at, CASE WHEN status = 'completed' THEN updated_at END AS closed_at, status = 'completed' AS by_writer
         FROM idempotency i WHERE tenant = $1
          AND NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.key = i.key AND a.action = 'record.complete')
       UNION ALL
       SELECT (before->>'createdAt')::timestamptz, at, false FROM audit_log
        WHERE tenant = $1 AND action IN ('record.complete', 'record.release', 'record.force_release'))
     SELECT count(*) FILTER (WHERE true) AS exact, count(*) FILTER (WHERE by_writer) AS late FROM claims
      WHERE created_at < $2::timestamptz - interval '10 minutes' AND (closed_at IS NULL OR closed_at > $2::timestamptz)`,
    TENANT,
    t,
  );
  return { exact: Number(row!.exact), lateWriterCompletions: Number(row!.late) };
}

describe("the stuck-claims series and the verified upstream counts", () => {
  it("counts claims stuck at each step's end: never above the SQL truth, short of it only by late writer completions", async () => {
    const report = await getMetrics(db, config, ACTOR, { window: "1h", tool: null, tenant: null }, NOW, {
      rollUp: false,
    });
    const ends = report.series.map((_, i) => new Date(report.series[i + 1]?.at ?? report.to));
    const shown = report.series.map((p) => p.stuckAtEnd);
    const truths = await Promise.all(ends.map(stuckTruth));
    for (const [i, truth] of truths.entries()) {
      expect(shown[i], `step ending ${ends[i]!.toISOString()}`).toBeLessThanOrEqual(truth.exact);
      expect(shown[i], `step ending ${ends[i]!.toISOString()}`).toBe(truth.exact - truth.lateWriterCompletions);
    }
    // By hand: a and its twin everywhere; the released claim from 11:15 until 11:45; b from 11:45; the late one never.
    expect(ends.map((e) => e.toISOString().slice(11, 19))).toEqual([
      "11:10:00",
      "11:15:00",
      "11:20:00",
      "11:25:00",
      "11:30:00",
      "11:35:00",
      "11:40:00",
      "11:45:00",
      "11:50:00",
      "11:55:00",
      "12:00:00",
      "12:00:30",
    ]);
    expect(shown).toEqual([2, 3, 3, 3, 3, 3, 3, 4, 3, 3, 3, 3]);
    // The truth had the late completion at 11:15, 11:20 and 11:25: the lower bound is labelled, not hidden.
    expect(truths.map((t) => t.lateWriterCompletions)).toEqual([0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    // The last point is now: the Stuck now figure.
    expect(shown.at(-1)).toBe(report.overall.stuckNow);
  });

  it("shows, per tool, the newest stored verify run that read upstream counts, and nothing for a tool without one", async () => {
    const report = await getMetrics(db, config, ACTOR, { window: "24h", tool: null, tenant: null }, NOW, {
      rollUp: false,
    });
    const of = (tool: string) => report.tools.find((t) => t.tool === tool);
    const [newest] = await db.$queryRawUnsafe<{ id: bigint; finished_at: Date; side_effects: string }[]>(
      `SELECT id, finished_at, evidence->'upstream'->>'sideEffects' AS side_effects FROM tool_verification
        WHERE tool = $1 AND jsonb_typeof(evidence->'upstream'->'sideEffects') = 'number'
        ORDER BY finished_at DESC, id DESC LIMIT 1`,
      SHIP,
    );
    expect(String(newest!.id)).toBe(newestCounted);
    // The shipment tool wrote no keys and no events: its figures say so, and the upstream's count stands beside them.
    expect(of(SHIP)).toMatchObject({ seen: false, executions: 0, replaysServed: null, sideEffectsPerOperation: null });
    expect(of(SHIP)!.verifiedUpstream).toEqual({
      verificationId: newestCounted,
      server: "shop",
      verdict: "failed",
      finishedAt: newest!.finished_at.toISOString(),
      adapter: "mcp-tool shop/get_shipment_status",
      sideEffects: Number(newest!.side_effects),
      operations: 1,
      calls: 4,
      detail: "2 shipments",
    });
    expect(of(QUIET)!.verifiedUpstream).toBeNull();
    expect(of(STUCK_TOOL)!.verifiedUpstream).toBeNull();
    // A tool filter reads that tool's runs only.
    const filtered = await getMetrics(db, config, ACTOR, { window: "24h", tool: SHIP, tenant: null }, NOW, {
      rollUp: false,
    });
    expect(filtered.tools.map((t) => [t.tool, t.verifiedUpstream?.sideEffects ?? null])).toEqual([[SHIP, 2]]);
  });
});
