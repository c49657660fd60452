import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { lastJobRuns } from "@/lib/audit/job-runs";
import { recordChainVerification } from "@/lib/audit/audit-chain-verifications";
import { verifyAuditChain } from "@/lib/audit/verify-audit-chain";
import { parseConfig } from "@/lib/config/load";
import { toExposition } from "@/lib/metrics/prometheus-exposition";
import { keptTenants, OTHER_TENANT, readScrapeFigures } from "@/lib/metrics/scrape-figures";
import { trim } from "@/lib/retention/trim";
import { connectTestDb } from "../helpers/db";

// The scrape's figures on real PostgreSQL: tenants past the configured number fold into "other", an
// unrecorded tool is tool="", a tenant-limited caller sees only its tenants, and a trim records its run.
// The table is shared with the run's other files, so every claim here is of this file's own tenants.
const run = randomBytes(3).toString("hex");
const tenants = [`big-${run}`, `mid-${run}`, `small-${run}`];
const admin: Actor = { kind: "system", id: "t", name: `scrape-test-${run}`, displayName: "t", role: "admin", tenants };
const keyOf = (i: number) => createHash("sha256").update(`scrape-figures|${run}|${i}`).digest("hex");

describe("the Prometheus scrape's figures (real PostgreSQL)", () => {
  const db = connectTestDb();
  const client = new pg.Client({ connectionString: inject("databaseUrl") });

  beforeAll(async () => {
    await client.connect();
    // Open claims: 3 in big (tool charge_card), 2 in mid (no tool recorded, one stuck), 1 in small.
    const claims: [string, string | null, string][] = [
      [tenants[0]!, "charge_card", "now()"],
      [tenants[0]!, "charge_card", "now()"],
      [tenants[0]!, "charge_card", "now() - interval '1 hour'"],
      [tenants[1]!, null, "now()"],
      [tenants[1]!, null, "now() - interval '1 hour'"],
      [tenants[2]!, "charge_card", "now()"],
    ];
    for (const [i, [tenant, tool, at]] of claims.entries())
      await client.query(
        `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, $3, 'in_progress', ${at})`,
        [keyOf(i), tenant, tool],
      );
    // The busiest tenants by rolled-up executions: big, then mid; small has none.
    await client.query(
      `INSERT INTO metrics_hourly (hour, tenant, tool, executions) VALUES
         ('2001-01-01T00:00:00Z', $1, 'charge_card', 100), ('2001-01-01T00:00:00Z', $2, '', 10)`,
      [tenants[0], tenants[1]],
    );
  });
  afterAll(async () => {
    await client.query("DELETE FROM idempotency WHERE tenant = ANY($1)", [tenants]);
    await client.query("DELETE FROM metrics_hourly WHERE tenant = ANY($1)", [tenants]);
    await client.end();
  });

  it("keeps the busiest tenants' labels and folds the rest into other; unrecorded tools are ''", async () => {
    const config = parseConfig(JSON.stringify({ prometheus: { tenantLabels: 2 } }));
    const figures = await readScrapeFigures(db, config, admin, new Date());
    const open = Object.fromEntries(figures.openClaims.map((r) => [`${r.tenant}/${r.tool}`, [r.inProgress, r.stuck]]));
    expect(open).toEqual({
      [`${tenants[0]}/charge_card`]: [3, 1],
      [`${tenants[1]}/`]: [2, 1],
      [`${OTHER_TENANT}/charge_card`]: [1, 0],
    });
    const text = await toExposition(figures, { version: "test", consoleUrl: "http://console.test" });
    expect(text).toContain(`idem_claims_in_progress{tool="",tenant="${tenants[1]}"} 2`);
    expect(text).toContain(`idem_claims_in_progress{tool="charge_card",tenant="other"} 1`);
    expect(text).toContain('idem_executions_total{tool="charge_card"} 100');
    expect(text).toContain('idem_console_info{version="test",console_url="http://console.test"} 1');
    // Every metric has HELP and TYPE lines.
    const names = new Set([...text.matchAll(/^# TYPE (\w+) /gm)].map((m) => m[1]));
    for (const name of names) expect(text, name).toMatch(new RegExp(`^# HELP ${name} \\S`, "m"));
  });

  it("a caller limited to one tenant sees only that tenant's claims", async () => {
    const config = parseConfig("{}");
    const figures = await readScrapeFigures(db, config, { ...admin, tenants: [tenants[2]!] }, new Date());
    expect(figures.openClaims.map((r) => [r.tenant, r.tool, r.inProgress])).toEqual([[tenants[2], "charge_card", 1]]);
  });

  it("ranks tenants by executions, then by name, and places new tenants last", () => {
    const kept = keptTenants(
      [
        { tenant: "b", weight: 5 },
        { tenant: "a", weight: 5 },
        { tenant: "c", weight: 9 },
      ],
      ["new"],
      3,
    );
    expect([...kept]).toEqual(["c", "a", "b"]);
  });

  it("a trim records its run, which the scrape reports", async () => {
    // Older than a century: nothing of the shared table is deleted, and the run is still a run.
    const result = await trim(db, {
      olderThanMs: 100 * 365 * 86_400_000,
      batchSize: 100,
      dryRun: false,
      includeUnresolved: false,
      actor: admin,
    });
    // Other files trim the shared table too: find this run's own row, then the newest, as the scrape reports it.
    const mine = await db.jobRun.findFirst({ where: { actor: `system:scrape-test-${run}` } });
    expect(mine).toMatchObject({ job: "trim", dryRun: false, deleted: 0 });
    expect(mine!.startedAt.toISOString()).toBe(result.startedAt);
    const figures = await readScrapeFigures(db, parseConfig("{}"), admin, new Date());
    const last = await lastJobRuns(db);
    expect(figures.jobs.trim!.finishedAt.getTime()).toBeGreaterThanOrEqual(mine!.finishedAt!.getTime());
    const text = await toExposition(figures, { version: "test", consoleUrl: "http://console.test" });
    expect(text).toContain(`idem_trim_last_run_timestamp_seconds ${figures.jobs.trim!.finishedAt.getTime() / 1000}\n`);
    expect(last.trim).not.toBeNull();
  });

  it("reports the newest audit chain verification: when it finished, and 1 or 0 for what it found", async () => {
    const verified = await verifyAuditChain(inject("databaseUrl"));
    expect(verified.ok).toBe(true);
    await recordChainVerification(db, verified, `system:scrape-test-${run}`);
    const info = { version: "test", consoleUrl: "http://console.test" };
    const ok = await readScrapeFigures(db, parseConfig("{}"), admin, new Date());
    expect(ok.auditChain).toMatchObject({ ok: true, rows: verified.rows, firstBad: null });
    const okText = await toExposition(ok, info);
    expect(okText).toContain(`idem_audit_chain_ok 1\n`);
    expect(okText).toContain(`idem_audit_chain_verified_timestamp_seconds ${verified.finishedAt.getTime() / 1000}\n`);

    const broken = {
      ...verified,
      ok: false,
      finishedAt: new Date(),
      firstBad: { id: "7", chainSeq: "7", problem: "link" as const, detail: "" },
    };
    await recordChainVerification(db, broken, `system:scrape-test-${run}`);
    const bad = await readScrapeFigures(db, parseConfig("{}"), admin, new Date());
    expect(bad.auditChain).toMatchObject({ ok: false, firstBad: { id: "7", problem: "link" } });
    expect(await toExposition(bad, info)).toContain(`idem_audit_chain_ok 0\n`);
    // Leave the shared database verified, as found.
    await recordChainVerification(db, { ...verified, finishedAt: new Date() }, `system:scrape-test-${run}`);
  });
});
