import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { buildToolsAudit } from "@/lib/annotations/build-audit";
import { AUDIT_WINDOWS, type AuditWindow, type ToolEvidence } from "@/lib/annotations/tool-audit-types";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { rollUpClosedHours } from "@/lib/metrics/rollup";
import type { FiguresRange, FiguresSource } from "@/lib/metrics/window-figures";
import { connectTestDb } from "../helpers/db";

/** Every windowFigures call of the audit: its range and where its figures came from. */
const figuresCalls = vi.hoisted(() => [] as { range: FiguresRange; source: FiguresSource }[]);
vi.mock("@/lib/metrics/window-figures", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/metrics/window-figures")>();
  return {
    ...actual,
    windowFigures: async (...args: Parameters<typeof actual.windowFigures>) => {
      const figures = await actual.windowFigures(...args);
      figuresCalls.push({ range: args[1], source: figures.source });
      return figures;
    },
  };
});

/**
 * Every evidence figure of the tools audit is exact for [since, now), `since` being now − window
 * floored to its UTC hour: rows, events, completions and releases a millisecond either side of that
 * hour's start, and at `now` itself, against counts written here in SQL. Rows at now − window itself
 * (37 minutes into that hour) are inside the window, so a window from exactly now − window shows here;
 * and the audit never counts that partial hour from the base tables. The window-start hours are
 * rolled up before the audit reads. Its own tenant and tools, in 2034 (other files share the database).
 */
const db = connectTestDb();
const run = randomBytes(3).toString("hex");
const TENANT = `tew-${run}`;
const OTHER = `tew-${run}-other`;
const CHARGE = `charge_${run}`;
const SHIP = `ship_${run}`;
const S = 1_000;
const M = 60 * S;
const H = 60 * M;
// Mid-hour: every now − window is 37 minutes into its hour.
const NOW = new Date(Date.parse("2034-03-10T12:37:00.000Z"));
const WINDOWS = Object.keys(AUDIT_WINDOWS) as AuditWindow[];
const config = parseConfig(JSON.stringify({ tools: {}, defaultStuckAfter: "10m" }));
const actor: Actor = {
  kind: "user",
  id: `tew-${run}`,
  name: `tew-${run}@test`,
  displayName: "window test",
  role: "viewer",
  tenants: [TENANT],
};

let serial = 0;
const key = () => createHash("sha256").update(`${run}|${serial++}`).digest("hex");

async function claim(
  tool: string,
  createdAt: Date,
  status: "in_progress" | "completed",
  updatedAt: Date | null = null,
  tenant = TENANT,
): Promise<string> {
  const k = key();
  await db.$executeRawUnsafe(
    `INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz)`,
    k,
    tenant,
    tool,
    status,
    createdAt.toISOString(),
    updatedAt?.toISOString() ?? null,
  );
  return k;
}

async function event(
  k: string,
  tool: string,
  kind: "replay_served" | "in_flight_rejected" | "outcome_unknown",
  at: Date,
): Promise<void> {
  await db.$executeRawUnsafe(
    `INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES ($1, $2, $3, $4, $5::timestamptz)`,
    k,
    TENANT,
    tool,
    kind,
    at.toISOString(),
  );
}

/** A claim an operator released: gone from the table, its snapshot in the audit log. */
async function released(tool: string, createdAt: Date, at: Date): Promise<void> {
  const before = { key: key(), tenant: TENANT, tool, status: "in_progress", createdAt: createdAt.toISOString() };
  await db.$executeRawUnsafe(
    `INSERT INTO audit_log (at, actor, actor_role, action, key, tenant, before, reason) VALUES ($1::timestamptz, 'tew@test', 'operator', 'record.release', $2, $3, $4::jsonb, 'processor says not taken')`,
    at.toISOString(),
    before.key,
    TENANT,
    JSON.stringify(before),
  );
}

/** Rows around one instant: a millisecond before and at/after it, and further either side. */
async function around(tool: string, edge: Date): Promise<void> {
  const t = (ms: number) => new Date(edge.getTime() + ms);
  for (const ms of [-20 * M, -1, 0, 1, 15 * M]) await claim(tool, t(ms), "completed", t(ms + 400));
  // Completed without a completion time: counted at the claim's time.
  for (const ms of [-1, 1]) await claim(tool, t(ms), "completed");
  // Claimed before the edge, completed after it: a completion inside, a claim outside.
  await claim(tool, t(-30 * S), "completed", t(30 * S));
  for (const ms of [-1, 1]) await claim(tool, t(ms), "in_progress");
  const open = await claim(tool, t(-2 * S), "in_progress");
  const open2 = await claim(tool, t(-3 * S), "in_progress");
  await event(open, tool, "outcome_unknown", t(-1));
  await event(open2, tool, "outcome_unknown", t(1));
  const done = await claim(tool, t(-5 * M), "completed", t(-4 * M));
  for (const ms of [-1, 0, 1]) await event(done, tool, "replay_served", t(ms));
  for (const ms of [-1, 1]) await event(done, tool, "in_flight_rejected", t(ms));
  for (const ms of [-1, 1]) await released(tool, t(ms), t(20 * M));
}

beforeAll(async () => {
  for (const window of WINDOWS) {
    await around(CHARGE, alignedSince(window));
    await around(CHARGE, new Date(NOW.getTime() - AUDIT_WINDOWS[window]));
  }
  // Inside every window: closed hours, the minutes before now, a row at `now` and one after it.
  await claim(CHARGE, new Date(NOW.getTime() - 5 * H), "completed", new Date(NOW.getTime() - 5 * H + 900));
  await claim(CHARGE, new Date(NOW.getTime() - 3 * M), "in_progress");
  await claim(CHARGE, new Date(NOW.getTime() - 20 * S), "completed", new Date(NOW.getTime() - 19 * S));
  const atNow = await claim(CHARGE, NOW, "in_progress");
  await event(atNow, CHARGE, "outcome_unknown", NOW);
  await claim(CHARGE, new Date(NOW.getTime() + M), "completed", new Date(NOW.getTime() + M + 100));
  await claim(SHIP, new Date(NOW.getTime() - 26 * H - 1), "completed", new Date(NOW.getTime() - 26 * H + 50));
  await claim(SHIP, new Date(NOW.getTime() - 24 * H + 1), "completed", new Date(NOW.getTime() - 24 * H + 50));
  // Another tenant's rows: outside the actor's scope.
  await claim(CHARGE, new Date(NOW.getTime() - 2 * H), "in_progress", null, OTHER);
  // Every window-start hour rolled up (the audit's own catch-up reaches 72 h back), as a day of traffic would have.
  await rollUpClosedHours(db, NOW, { catchUpHours: 7 * 24 + 3 });
}, 120_000);

/** The window's start as the audit must name it, worked out here: the UTC hour holding now − window. */
function alignedSince(window: AuditWindow): Date {
  return new Date(Math.floor((NOW.getTime() - AUDIT_WINDOWS[window]) / H) * H);
}

/** The truth, counted here from the base tables and the audit log. */
async function truth(tool: string, since: Date, now: Date): Promise<ToolEvidence> {
  const [row] = await db.$queryRawUnsafe<Record<string, number | Date | null>[]>(
    `SELECT
       (SELECT count(*)::int FROM idempotency WHERE tenant = $1 AND tool = $2 AND created_at >= $3 AND created_at < $4)
     + (SELECT count(*)::int FROM audit_log WHERE tenant = $1 AND action IN ('record.release', 'record.force_release') AND before->>'tool' = $2
          AND (before->>'createdAt')::timestamptz >= $3 AND (before->>'createdAt')::timestamptz < $4) AS records,
       (SELECT count(*)::int FROM idempotency WHERE tenant = $1 AND tool = $2 AND status = 'completed'
          AND (updated_at >= $3 AND updated_at < $4 OR updated_at IS NULL AND created_at >= $3 AND created_at < $4)) AS completed,
       (SELECT count(*)::int FROM idempotency WHERE tenant = $1 AND tool = $2 AND status = 'in_progress' AND created_at >= $3 AND created_at < $4) AS in_progress,
       (SELECT count(*)::int FROM idempotency_event WHERE tenant = $1 AND tool = $2 AND kind = 'replay_served' AND at >= $3 AND at < $4) AS replays,
       (SELECT count(*)::int FROM idempotency_event WHERE tenant = $1 AND tool = $2 AND kind = 'in_flight_rejected' AND at >= $3 AND at < $4) AS rejections,
       (SELECT count(*)::int FROM idempotency_event WHERE tenant = $1 AND tool = $2 AND kind = 'outcome_unknown' AND at >= $3 AND at < $4) AS outcome_unknown,
       (SELECT count(*)::int FROM idempotency WHERE tenant = $1 AND tool = $2 AND status = 'in_progress' AND created_at < $4::timestamptz - interval '10 minutes') AS stuck,
       (SELECT count(*)::int FROM idempotency i WHERE tenant = $1 AND tool = $2 AND status = 'in_progress'
          AND EXISTS (SELECT 1 FROM idempotency_event e WHERE e.key = i.key AND e.kind = 'outcome_unknown' AND e.at >= $3 AND e.at < $4)) AS unresolved,
       (SELECT max(created_at) FROM idempotency WHERE tenant = $1 AND tool = $2 AND created_at < $4) AS last_seen`,
    TENANT,
    tool,
    since,
    now,
  );
  const n = (v: unknown) => Number(v);
  return {
    records: n(row!.records),
    completed: n(row!.completed),
    inProgress: n(row!.in_progress),
    replays: n(row!.replays),
    rejections: n(row!.rejections),
    outcomeUnknown: n(row!.outcome_unknown),
    stuck: n(row!.stuck),
    unresolvedOutcomeUnknown: n(row!.unresolved),
    lastSeen: row!.last_seen instanceof Date ? row!.last_seen.toISOString() : null,
    // This file never runs the duplicate scan: nothing is counted, so nothing is claimed (repeat-delays.test.ts counts them).
    duplicatesThrough: null,
    argumentsMismatches: null,
    repeatDelays: null,
  };
}

describe("the tools audit's evidence is exact for the window it names", () => {
  for (const window of WINDOWS) {
    it(`${window}: every figure equals the SQL count over [the hour holding now − ${window}, now)`, async () => {
      figuresCalls.length = 0;
      const audit = await buildToolsAudit(db, config, actor, window, NOW);
      const since = alignedSince(window);
      expect(audit.since).toBe(since.toISOString());
      expect(audit.generatedAt).toBe(NOW.toISOString());
      // The start of an hour, and the window is at least its name long and less than an hour more.
      expect(audit.since).toMatch(/T\d\d:00:00\.000Z$/);
      const span = NOW.getTime() - Date.parse(audit.since);
      expect(span).toBeGreaterThanOrEqual(AUDIT_WINDOWS[window]);
      expect(span).toBeLessThan(AUDIT_WINDOWS[window] + H);
      for (const tool of [CHARGE, SHIP]) {
        const row = audit.tools.find((t) => t.name === tool);
        const expected = await truth(tool, since, NOW);
        expect(row?.evidence, `${tool} over ${window}`).toEqual(expected);
      }
      // The boundary rows are really there: a millisecond before the hour's start holds rows, and so
      // does the part of the hour before now − window (the window from exactly then counts fewer).
      const inside = (await truth(CHARGE, since, NOW)).records;
      expect((await truth(CHARGE, new Date(since.getTime() - 1), NOW)).records).toBeGreaterThan(inside);
      expect((await truth(CHARGE, new Date(NOW.getTime() - AUDIT_WINDOWS[window]), NOW)).records).toBeLessThan(inside);
      // The explanations name the window by its real start.
      expect(audit.tools.find((t) => t.name === CHARGE)?.explanation).toContain(
        `in the last ${window} (since ${audit.since.slice(0, 16).replace("T", " ")} UTC)`,
      );
    });

    it(`${window}: the audit counts no partial hour from the base tables`, async () => {
      figuresCalls.length = 0;
      const audit = await buildToolsAudit(db, config, actor, window, NOW);
      expect(figuresCalls.length).toBeGreaterThan(0);
      for (const { range, source } of figuresCalls) {
        expect(range.from.toISOString()).toBe(audit.since);
        expect(source.countedLiveHead).toBeNull();
        // Every closed hour of the window from the rollup; only the open hour (12:00 on) from slices or live.
        expect(source.rolledUpSteps).toBe(Math.floor((NOW.getTime() - Date.parse(audit.since)) / H));
      }
    });
  }
});
