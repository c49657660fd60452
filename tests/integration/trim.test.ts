import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { lookUpRefs } from "@/lib/records/lookup";
import { trim, type TrimOptions } from "@/lib/retention/trim";
import { connectTestDb } from "../helpers/db";
import { runCli } from "../helpers/run-cli";

const run = randomBytes(3).toString("hex");
const TENANT = `trim-${run}`;
const actor: Actor = {
  kind: "system",
  id: "trim-test",
  name: `trim-test-${run}`,
  displayName: "trim test",
  role: "admin",
  tenants: [],
};

// trim() acts on the whole table, which the run's other files share. So this file lives in 2001:
// its "now" is 2001-01-10 and its rows are older than anything another file writes, so a 48 h
// cutoff (2001-01-08) reaches only them.
const NOW = new Date("2001-01-10T00:00:00Z");
const DAY = 86_400_000;
const at = (daysAgo: number, i = 0) => new Date(NOW.getTime() - daysAgo * DAY + i * 1000);

describe("trim: batched retention", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
  afterAll(() => pool.end());
  let n = 0;

  async function insert(status: string, createdAt: Date, tenant = TENANT): Promise<string> {
    n += 1;
    const key = createHash("sha256").update(`trim|${run}|${n}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, response, created_at) VALUES ($1, $2, 'charge_card', $3, $4, $5)`,
      [key, tenant, status, status === "completed" ? { id: `ch_${n}` } : null, createdAt],
    );
    return key;
  }
  async function insertEvent(key: string, recordedAt: Date) {
    await pool.query(
      `INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES ($1, $2, 'charge_card', 'replay_served', $3)`,
      [key, TENANT, recordedAt],
    );
  }
  const options = (extra: Partial<TrimOptions> = {}): TrimOptions => ({
    olderThanMs: 2 * DAY,
    batchSize: 4,
    dryRun: false,
    includeUnresolved: false,
    actor,
    now: NOW,
    ...extra,
  });
  const remaining = async () =>
    (await pool.query<{ key: string }>(`SELECT key FROM idempotency WHERE tenant = $1`, [TENANT])).rows
      .map((r) => r.key)
      .sort();
  const trimAudit = () => db.auditLog.findMany({ where: { actor: `system:${actor.name}` }, orderBy: { id: "asc" } });

  let oldDone: string[];
  let oldOther: string;
  let oldClaims: string[];
  let recent: string[];

  beforeEach(async () => {
    await pool.query(`DELETE FROM idempotency WHERE tenant = $1`, [TENANT]);
    await pool.query(`DELETE FROM idempotency_event WHERE tenant = $1`, [TENANT]);
    oldDone = [];
    for (let i = 0; i < 10; i++) oldDone.push(await insert("completed", at(3, i)));
    oldOther = await insert("failed", at(4)); // a status some writer wrote: not a claim, trimmed like completed
    oldClaims = [await insert("in_progress", at(5)), await insert("in_progress", at(3, 30))];
    recent = [
      await insert("completed", at(1)),
      await insert("in_progress", at(0.5)),
      await insert("completed", at(1.9)),
    ];
    for (const key of [...oldDone.slice(0, 5), oldClaims[0]!]) await insertEvent(key, at(3));
    await insertEvent(recent[0]!, at(1));
  });

  it("deletes old rows that are not in_progress in several batches, keeps and reports old claims, leaves recent rows, trims old events", async () => {
    const before = (await trimAudit()).length;
    const result = await trim(db, options());

    expect(result.cutoff).toBe("2001-01-08T00:00:00.000Z");
    expect(result.records).toEqual({
      planned: 11,
      deleted: 11,
      deletedByStatus: { completed: 10, failed: 1 },
      batches: 3,
    }); // 4 + 4 + 3
    expect(result.unresolved).toMatchObject({
      planned: 2,
      deleted: 0,
      deletedClaims: [],
      kept: 2,
      oldestKept: at(5).toISOString(),
    });
    expect(result.unresolved.keptSample.map((c) => c.key)).toEqual(oldClaims);
    expect(result.events).toEqual({ planned: 6, deleted: 6, batches: 2 });
    expect(await remaining()).toEqual([...oldClaims, ...recent].sort());
    expect(
      (await pool.query(`SELECT count(*)::int AS n FROM idempotency_event WHERE tenant = $1`, [TENANT])).rows[0].n,
    ).toBe(1);

    // One audit row per batch, in the batch's transaction: 3 for rows, 2 for events.
    const audit = (await trimAudit()).slice(before);
    expect(audit.map((a) => a.action)).toEqual([
      "retention.trim",
      "retention.trim",
      "retention.trim",
      "retention.trim_events",
      "retention.trim_events",
    ]);
    expect(audit.map((a) => a.id.toString())).toEqual(result.auditIds);
    expect(audit[0]).toMatchObject({
      actorRole: "admin",
      key: null,
      tenant: null,
      evidence: { runId: result.runId, table: "idempotency", deleted: 4, cutoff: result.cutoff, olderThan: "2d" },
    });
    expect(audit.reduce((sum, a) => sum + ((a.evidence as { deleted: number }).deleted ?? 0), 0)).toBe(17);
  });

  it("each deleted ref is recorded under its batch: a lookup says trimmed, by which run, within the reader's tenants", async () => {
    const result = await trim(db, options({ includeUnresolved: true }));
    const config = parseConfig(JSON.stringify({}));
    const reader = (tenants: string[]): Actor => ({
      kind: "user",
      id: `reader-${run}`,
      name: `reader-${run}@trim.test`,
      displayName: "reader",
      role: "viewer",
      tenants,
    });
    const lookUp = async (who: Actor, text: string) => {
      const found = await lookUpRefs(db, who, text, config);
      if (found.kind !== "searched") throw new Error(found.kind);
      return found;
    };

    // A completed row (first batch), the "failed" row and an unresolved claim (its own phase), by ref and by key.
    for (const key of [oldDone[0]!, oldOther, oldClaims[1]!]) {
      for (const text of [`ref ${key.slice(0, 12)}`, key]) {
        const found = await lookUp(reader([TENANT]), text);
        expect(found.matches).toEqual([]);
        const miss = found.misses[0]!;
        expect(miss.fate, text).toBe("trimmed");
        expect(miss.trimmed).toHaveLength(1);
        expect(miss.trimmed[0]).toMatchObject({
          runId: result.runId,
          tenant: TENANT,
          cutoff: result.cutoff,
          olderThan: "2d",
          actor: `system:${actor.name}`,
          matchedOn: "ref",
          auditVisible: false,
        });
        expect(result.auditIds).toContain(miss.trimmed[0]!.auditId);
        expect(found.whyMissing[0]).toContain(`trimmed by retention run ${result.runId} at `);
      }
    }
    const unresolvedEntry = (await lookUp(reader([]), oldClaims[1]!)).misses[0]!.trimmed[0]!;
    expect(unresolvedEntry).toMatchObject({ action: "retention.trim_unresolved", auditVisible: true });

    // Another tenant's reader: never seen, as a ref nobody wrote; a recent row is still a match.
    const elsewhere = await lookUp(reader([`other-${run}`]), `ref ${oldDone[1]!.slice(0, 12)}`);
    expect(elsewhere.misses).toEqual([
      { ref: oldDone[1]!.slice(0, 12), fate: "never_seen", released: [], trimmed: [], events: null, lastAudit: null },
    ]);
    expect((await lookUp(reader([TENANT]), recent[0]!)).matches.map((m) => m.key)).toEqual([recent[0]]);

    // Exactly the deleted refs, 6 bytes each, under this run's audit rows.
    const { rows } = await pool.query<{ refs: string[] }>(
      `SELECT array_agg(encode(substr(c.refs, 1 + 6 * i, 6), 'hex') ORDER BY 1) AS refs
         FROM trimmed_ref_chunk c, generate_series(0, length(c.refs) / 6 - 1) AS i
        WHERE c.audit_id = ANY($1::bigint[]) AND c.tenant = $2`,
      [result.auditIds, TENANT],
    );
    expect([...(rows[0]?.refs ?? [])].sort()).toEqual(
      [...oldDone, oldOther, ...oldClaims].map((k) => k.slice(0, 12)).sort(),
    );
  });

  it("--include-unresolved deletes old claims too, naming each one in the result and the audit log", async () => {
    const before = (await trimAudit()).length;
    const result = await trim(db, options({ includeUnresolved: true }));

    expect(result.unresolved).toMatchObject({
      planned: 2,
      deleted: 2,
      batches: 1,
      kept: 0,
      oldestKept: null,
      keptSample: [],
    });
    expect(result.unresolved.deletedClaims.map((c) => c.key)).toEqual(oldClaims);
    expect(result.unresolved.deletedClaims[0]).toMatchObject({
      ref: oldClaims[0]!.slice(0, 12),
      tenant: TENANT,
      tool: "charge_card",
      createdAt: at(5).toISOString(),
    });
    expect(await remaining()).toEqual([...recent].sort());

    const unresolvedAudit = (await trimAudit()).slice(before).filter((a) => a.action === "retention.trim_unresolved");
    expect(unresolvedAudit).toHaveLength(1);
    expect(unresolvedAudit[0]?.before).toMatchObject({
      claims: oldClaims.map((key) => ({ key, status: "in_progress", tenant: TENANT })),
    });
  });

  it("a dry run counts and deletes nothing, writing no audit row", async () => {
    const before = (await trimAudit()).length;
    const result = await trim(db, options({ dryRun: true, includeUnresolved: true }));
    expect(result).toMatchObject({ dryRun: true, auditIds: [] });
    expect(result.records).toMatchObject({ planned: 11, deleted: 0, batches: 0 });
    expect(result.unresolved).toMatchObject({ planned: 2, deleted: 0, kept: 2 });
    expect(result.events).toMatchObject({ planned: 6, deleted: 0 });
    expect(await remaining()).toHaveLength(16);
    expect(await trimAudit()).toHaveLength(before);
  });

  it("skips a row someone holds (a reconciler asking its processor) instead of waiting for it", async () => {
    const held = await pool.connect();
    try {
      await held.query("BEGIN");
      await held.query(`SELECT 1 FROM idempotency WHERE key = $1 FOR UPDATE`, [oldDone[0]]);
      const result = await trim(db, options({ batchSize: 100 }));
      expect(result.records.deleted).toBe(10);
      expect(await remaining()).toContain(oldDone[0]);
    } finally {
      await held.query("ROLLBACK");
      held.release();
    }
  });

  it.each([
    [["--older-than", "15", "minutes"], "--older-than"],
    [["--older-than", "-3h"], "--older-than"],
    [["--batch", "-1"], "--batch"],
    [["--batch", "0"], "--batch"],
  ])("the CLI refuses %j with exit 2, naming %s", async (args, option) => {
    const cli = await runCli(["trim", ...args], { DATABASE_URL: inject("databaseUrl") });
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain(option);
    expect(cli.stdout).toBe("");
  });

  it("the CLI's dry run prints the whole result as JSON", async () => {
    // 100 years: nothing in this database is that old, so the counts are 0 whoever shares it.
    const cli = await runCli(["trim", "--dry-run", "--json", "--older-than", "36500d"], {
      DATABASE_URL: inject("databaseUrl"),
    });
    expect(cli.code).toBe(0);
    const result = JSON.parse(cli.stdout) as Record<string, unknown>;
    expect(result).toMatchObject({
      dryRun: true,
      batchSize: 10_000,
      records: { planned: 0, deleted: 0 },
      events: { planned: 0, deleted: 0 },
      auditIds: [],
    });
    expect(Object.keys(result).sort()).toEqual([
      "auditIds",
      "batchSize",
      "cutoff",
      "dryRun",
      "durationMs",
      "events",
      "includeUnresolved",
      "olderThanMs",
      "records",
      "runId",
      "startedAt",
      "unresolved",
    ]);
  });
});
