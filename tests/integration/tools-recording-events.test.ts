import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { RECORDING_LOOKBACK_MS, toolsRecordingEvents } from "@/lib/metrics/query-metrics";
import { connectTestDb } from "../helpers/db";

/**
 * Whether a tool's writer records events: any of the contract's four kinds in the last week. An
 * arguments_mismatch event is not in the rollups' counts, so once its hour is rolled up it must
 * still be found (CI caught the demo's one mismatch of send_receipt_email for acme dropping out:
 * the truth test's suppression rate, after midnight). Its own tenants and tools, in 2032.
 */
const db = connectTestDb();
const run = randomBytes(3).toString("hex");
const TENANT = `tre-${run}`;
const OTHER = `tre-${run}-other`;
const H = 3_600_000;
const HOUR = Date.parse("2032-05-10T10:00:00.000Z") + Math.floor(Math.random() * 500) * 24 * H;
const NOW = new Date(HOUR + 2 * H + 5 * 60_000);

async function event(tool: string, kind: string, at: Date, tenant = TENANT): Promise<void> {
  await db.$executeRaw`INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES (${randomBytes(32).toString("hex")}, ${tenant}, ${tool}, ${kind}, ${at}::timestamptz)`;
}

describe("tools recording events", () => {
  it("finds a tool whose only event of the week is an arguments_mismatch in a rolled-up hour", async () => {
    const mismatchOnly = `mismatch_only_${run}`;
    const tooOld = `mismatch_last_week_${run}`;
    await event(mismatchOnly, "arguments_mismatch", new Date(HOUR + 50 * 60_000));
    await event(tooOld, "arguments_mismatch", new Date(NOW.getTime() - RECORDING_LOOKBACK_MS - H));
    for (const hour of [HOUR, HOUR + H])
      await db.$executeRaw`INSERT INTO metrics_rollup_hour (hour, duration_ms) VALUES (${new Date(hour)}::timestamptz, 1) ON CONFLICT DO NOTHING`;

    const recording = await toolsRecordingEvents(db, [TENANT], NOW);
    expect(recording.has(mismatchOnly)).toBe(true);
    expect(recording.has(tooOld)).toBe(false);
    expect((await toolsRecordingEvents(db, [OTHER], NOW)).has(mismatchOnly)).toBe(false);
    expect((await toolsRecordingEvents(db, null, NOW)).has(mismatchOnly)).toBe(true);
  });
});
