import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { OTHER_TENANT } from "@/lib/metrics/scrape-figures";
import { connectTestDb } from "../helpers/db";
import { queryPrometheus, startPrometheus, waitFor, type Engine } from "../helpers/prometheus-engines";
import { systemAdmin } from "../helpers/system-admin";

// A real Prometheus (Debian's package, on loopback) scraping the running console with a metrics-scope
// token; every figure read back through Prometheus's HTTP API and held against the database. The
// demo world writes all the while, so the claims compared exactly are a tenant and tool of this run's
// own, which nothing else writes.
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const tenant = `prom-${run}`;
const tool = `prom_probe_${run}`;
const system = systemAdmin("prometheus-scrape-test", { id: "prometheus-scrape" });
const keyOf = (i: number) => createHash("sha256").update(`prometheus-scrape|${run}|${i}`).digest("hex");

describe("a real Prometheus scrapes GET /api/v1/metrics/prometheus", () => {
  const db = connectTestDb();
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  let prometheus: Engine;
  let metricsToken: string;
  let adminToken: string;

  beforeAll(async () => {
    await client.connect();
    // 3 claims in flight, 2 stuck (an hour old, past the default 5 min), 4 completed; one stuck claim has an outcome_unknown event.
    const rows: [string, string, string][] = [];
    for (let i = 0; i < 3; i += 1) rows.push([keyOf(i), "in_progress", "now()"]);
    for (let i = 3; i < 5; i += 1) rows.push([keyOf(i), "in_progress", "now() - interval '1 hour'"]);
    for (let i = 5; i < 9; i += 1) rows.push([keyOf(i), "completed", "now() - interval '2 minutes'"]);
    for (const [key, status, at] of rows)
      await client.query(
        `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, $3, $4, ${at})`,
        [key, tenant, tool, status],
      );
    await client.query(
      `INSERT INTO idempotency_event (key, tenant, tool, kind) VALUES ($1, $2, $3, 'outcome_unknown')`,
      [keyOf(3), tenant, tool],
    );
    // What autovacuum would do soon enough: without it the table has no planner estimate (reltuples −1) to report.
    await client.query("ANALYZE idempotency");
    metricsToken = (await createToken(db, system, { name: `prom-${run}`, role: "viewer", scope: "metrics" })).token;
    adminToken = (await createToken(db, system, { name: `prom-admin-${run}`, role: "admin" })).token;
    // A real reconcile run over this tool's claims (no processor: both stay, unknown), so its run is recorded.
    const reconciled = await fetch(`${baseUrl}/api/v1/reconcile`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ filter: { tool }, dryRun: false }),
    });
    expect(reconciled.status, await reconciled.text()).toBe(200);
    prometheus = await startPrometheus({ target: new URL(baseUrl).host, token: metricsToken });
  });
  afterAll(async () => {
    await prometheus?.stop();
    await client.query("DELETE FROM idempotency WHERE tenant = $1", [tenant]);
    await client.query("DELETE FROM idempotency_event WHERE tenant = $1", [tenant]);
    await client.end();
  });

  const sqlNumber = async (sql: string, values: unknown[] = []) =>
    Number((await client.query<{ n: string | number | null }>(sql, values)).rows[0]?.n ?? 0);
  const promValue = async (query: string) => {
    const result = await queryPrometheus(prometheus.url, query);
    expect(result, `${query}: one sample`).toHaveLength(1);
    return result[0]!.value;
  };

  /**
   * The one series of `metric` for this run's tool. Its tenant keeps a label of its own only while it
   * ranks among the console's `tenantLabels` (20) with the most rolled-up traffic, and a new tenant has
   * none: once the shared database holds more tenants (the files before this one wrote them), it is folded
   * into "other". The tool is this run's alone, so either way the series counts exactly this tenant's claims.
   */
  const probeValue = async (metric: string) => {
    const result = await queryPrometheus(prometheus.url, `${metric}{tool="${tool}"}`);
    expect(result, `${metric}{tool="${tool}"}: one series`).toHaveLength(1);
    expect([tenant, OTHER_TENANT], `${metric}'s tenant label`).toContain(result[0]!.labels.tenant);
    return result[0]!.value;
  };

  it("the metrics token scrapes, and is refused everything else", async () => {
    const scrape = await fetch(`${baseUrl}/api/v1/metrics/prometheus`, {
      headers: { authorization: `Bearer ${metricsToken}` },
    });
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain("# HELP idem_claims_stuck ");
    expect(scrape.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const path of ["/api/v1/records", "/api/v1/metrics?window=1h", "/api/v1/me", "/api/v1/audit"]) {
      const refused = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${metricsToken}` } });
      expect(refused.status, path).toBe(403);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("scope (metrics)");
    }
  });

  it("Prometheus scrapes the target healthy, and every gauge equals its SQL count", async () => {
    await waitFor("the first scrape of this run's tool", async () =>
      (await queryPrometheus(prometheus.url, `idem_claims_in_progress{tool="${tool}"}`)).length > 0 ? true : undefined,
    );
    const targets = (await (await fetch(`${prometheus.url}/api/v1/targets`)).json()) as {
      data: { activeTargets: { health: string; lastError: string }[] };
    };
    expect(targets.data.activeTargets.map((t) => [t.health, t.lastError])).toEqual([["up", ""]]);

    const where = "tenant = $1 AND tool = $2";
    expect(await probeValue("idem_claims_in_progress")).toBe(
      await sqlNumber(`SELECT count(*) AS n FROM idempotency WHERE ${where} AND status = 'in_progress'`, [
        tenant,
        tool,
      ]),
    );
    expect(await probeValue("idem_claims_stuck")).toBe(
      await sqlNumber(
        `SELECT count(*) AS n FROM idempotency WHERE ${where} AND status = 'in_progress' AND created_at < now() - interval '5 minutes'`,
        [tenant, tool],
      ),
    );
    expect(await promValue(`idem_outcome_unknown_unresolved{tool="${tool}"}`)).toBe(
      await sqlNumber(
        `SELECT count(*) AS n FROM idempotency i WHERE i.tool = $1 AND i.status = 'in_progress'
           AND EXISTS (SELECT 1 FROM idempotency_event e WHERE e.key = i.key AND e.kind = 'outcome_unknown')`,
        [tool],
      ),
    );
    expect(await promValue(`idem_stuck_threshold_seconds{tool="${tool}"}`)).toBe(300);
    // An age is read at the scrape: at most a scrape interval (1 s) behind the database's now().
    const oldestStuck = await sqlNumber(
      `SELECT extract(epoch FROM now() - min(created_at)) AS n FROM idempotency WHERE ${where} AND status = 'in_progress' AND created_at < now() - interval '5 minutes'`,
      [tenant, tool],
    );
    expect(oldestStuck).toBeGreaterThan(3500);
    expect(
      Math.abs((await promValue(`idem_oldest_stuck_claim_age_seconds{tool="${tool}"}`)) - oldestStuck),
    ).toBeLessThan(3);

    // The reconcile run above, as job_run recorded it.
    expect(await promValue("idem_reconciler_last_run_timestamp_seconds")).toBe(
      await sqlNumber(
        "SELECT extract(epoch FROM max(finished_at)) AS n FROM job_run WHERE job = 'reconcile' AND NOT dry_run",
      ),
    );
    expect(await promValue("idem_reconciler_unresolved")).toBe(
      await sqlNumber(
        "SELECT left_unknown AS n FROM job_run WHERE job = 'reconcile' AND NOT dry_run ORDER BY finished_at DESC LIMIT 1",
      ),
    );
    expect(await promValue("idem_trim_last_run_timestamp_seconds")).toBe(
      await sqlNumber(
        "SELECT COALESCE(extract(epoch FROM max(finished_at)), 0) AS n FROM job_run WHERE job = 'trim' AND NOT dry_run",
      ),
    );

    // The table's figures come from the catalog while the demo world writes: within a few percent.
    const bytes = await sqlNumber("SELECT pg_total_relation_size('idempotency') AS n");
    expect(Math.abs((await promValue("idem_table_bytes")) - bytes) / bytes).toBeLessThan(0.05);
    const estimate = await sqlNumber(
      "SELECT reltuples / GREATEST(relpages, 1) * (pg_relation_size(oid) / current_setting('block_size')::int) AS n FROM pg_class WHERE oid = 'idempotency'::regclass",
    );
    expect(Math.abs((await promValue("idem_table_rows_estimate")) - estimate) / estimate).toBeLessThan(0.05);
    const oldestRow = await sqlNumber("SELECT extract(epoch FROM now() - min(created_at)) AS n FROM idempotency");
    expect(Math.abs((await promValue("idem_oldest_row_age_seconds")) - oldestRow)).toBeLessThan(3);
    expect(await promValue("idem_retention_seconds")).toBe(48 * 3600);
    expect(await promValue(`idem_console_info{version="0.1.0",console_url="${baseUrl}"}`)).toBe(1);
  });

  it("every query of the shipped Grafana dashboard runs on this Prometheus and finds series", async () => {
    const dashboard = JSON.parse(readFileSync("deploy/grafana/idem-dashboard.json", "utf8")) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    for (const panel of dashboard.panels)
      for (const { expr } of panel.targets) {
        const query = expr.replaceAll("$job", ".+").replaceAll("$__rate_interval", "1m");
        // A broken expression is a query error (queryPrometheus throws); one naming no metric we serve finds nothing.
        const series = (await queryPrometheus(prometheus.url, query.replace(/\[[^\]]+\](?: offset \w+)?/g, "[1m]")))
          .length;
        if (!/rate|increase/.test(query)) expect(series, `${panel.title}: ${query}`).toBeGreaterThan(0);
      }
  });

  it("every metric has HELP text and its type, as Prometheus read them", async () => {
    const metadata = (await (await fetch(`${prometheus.url}/api/v1/metadata`)).json()) as {
      data: Record<string, { type: string; help: string }[]>;
    };
    const ours = Object.fromEntries(
      Object.entries(metadata.data)
        .filter(([name]) => name.startsWith("idem_"))
        .map(([name, [entry]]) => [name, entry!.type]),
    );
    expect(ours).toMatchObject({
      idem_claims_in_progress: "gauge",
      idem_claims_stuck: "gauge",
      idem_oldest_stuck_claim_age_seconds: "gauge",
      idem_outcome_unknown_unresolved: "gauge",
      idem_executions_total: "counter",
      idem_replays_served_total: "counter",
      idem_in_flight_rejections_total: "counter",
      idem_outcome_unknown_total: "counter",
      idem_resolutions_total: "counter",
      idem_reconciler_last_run_timestamp_seconds: "gauge",
      idem_reconciler_unresolved: "gauge",
      idem_trim_last_run_timestamp_seconds: "gauge",
      idem_table_bytes: "gauge",
      idem_table_rows_estimate: "gauge",
      idem_oldest_row_age_seconds: "gauge",
      idem_console_info: "gauge",
    });
    for (const [name, [entry]] of Object.entries(metadata.data))
      if (name.startsWith("idem_")) expect(entry!.help.length, name).toBeGreaterThan(20);
  });
});
