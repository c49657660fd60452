import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { parseRecordsQuery } from "@/lib/records/list-filters";
import { connectTestDb } from "../helpers/db";
import { insertTakenClaim } from "../helpers/taken-claim";
import { consoleSessionsOn, startTestReplica, waitForReplay, whileReplayPaused } from "../helpers/replica";
import { systemAdmin } from "../helpers/system-admin";

// The console against a real streaming replica (tests/setup/start-replica.sh) of this run's
// database: DATABASE_READ_URL names the replica's copy. The route handlers and page loaders run
// in this process; pausing the replica's replay makes it behind on purpose, so which server
// answered is visible in the answer itself, and pg_stat_activity on the replica shows the reads.
const primaryUrl = inject("databaseUrl");
const embedded = inject("databaseKind") === "embedded";
const replica = embedded ? null : startTestReplica(primaryUrl);
const replicaUrl = replica?.urlOf(primaryUrl) ?? "";
const database = new URL(primaryUrl).pathname.slice(1);
process.env.DATABASE_URL = primaryUrl;
if (replica) process.env.DATABASE_READ_URL = replicaUrl;

const processor = await startDemoProcessor();
const configDir = mkdtempSync(path.join(tmpdir(), "idem-read-replica-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({
    tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } },
    database: { replicaLagWarning: "1s" },
  }),
);

const { GET: listRecords } = await import("@/app/api/v1/records/route");
const { GET: exportRecords } = await import("@/app/api/v1/records/export/route");
const { GET: recordDetail } = await import("@/app/api/v1/records/[key]/route");
const { POST: resolve } = await import("@/app/api/v1/records/[key]/resolve/route");
const { GET: metrics } = await import("@/app/api/v1/metrics/route");
const { GET: scrape } = await import("@/app/api/v1/metrics/prometheus/route");
const { GET: toolsAudit } = await import("@/app/api/v1/tools/audit/route");
const { GET: auditList } = await import("@/app/api/v1/audit/route");
const { GET: lookup } = await import("@/app/api/v1/lookup/route");
const { GET: health } = await import("@/app/api/health/route");
const { loadRecordPageData } = await import("@/lib/pages/record-page-data");
const { loadRecordsPageData } = await import("@/lib/pages/records-page-data");
const { loadOverviewPageData, loadToolsPageData } = await import("@/lib/pages/console-page-data");
const { loadReplicaLagNotice } = await import("@/lib/pages/replica-lag-notice");
const { forgetReplicaLag } = await import("@/lib/db/replica-lag");

const run = randomBytes(3).toString("hex");
const TENANT = `replica-${run}`;
const admin = systemAdmin("read-replica-test");

describe.skipIf(embedded)("the read replica (DATABASE_READ_URL)", () => {
  const db = connectTestDb();
  let token = "";
  let n = 0;

  beforeAll(async () => {
    token = (await createToken(db, admin, { name: `replica-${run}`, role: "admin" })).token;
  });
  afterAll(() => processor.stop());

  async function stuckClaim() {
    n += 1;
    return insertTakenClaim(db, processor.url, { tenant: TENANT, label: `replica|${run}|${n}`, amountCents: 900 + n });
  }
  const get = (url: string) =>
    new Request(`http://console.test${url}`, { headers: { authorization: `Bearer ${token}` } });
  const none = { params: Promise.resolve({} as Record<string, never>) };
  const listedKeys = async () => {
    const response = await listRecords(get(`/api/v1/records?tenant=${TENANT}&limit=100`), none);
    expect(response.status).toBe(200);
    return ((await response.json()) as { records: { key: string }[] }).records.map((r) => r.key);
  };
  const statusOnPage = async (key: string, resolved: string | null) => {
    const page = await loadRecordPageData(admin, key, new Date(), { resolved });
    return page.kind === "record" ? page.detail.record.status : page.kind;
  };

  it("bounds the console's parallel workers on the primary only: the replica's sessions keep its own setting", async () => {
    const { getDb, getReadDb } = await import("@/lib/db/client");
    const setting = async (client: typeof db) =>
      (await client.$queryRaw<{ n: string }[]>`SELECT current_setting('max_parallel_workers_per_gather') AS n`)[0]!.n;
    const server = await db.$queryRaw<
      { n: string }[]
    >`SELECT boot_val AS n FROM pg_settings WHERE name = 'max_parallel_workers_per_gather'`;
    expect([await setting(getDb()), await setting(getReadDb()), await setting(getReadDb("export"))]).toEqual([
      "0",
      server[0]!.n,
      server[0]!.n,
    ]);
    expect(server[0]!.n).not.toBe("0");
  });

  it("lists from the replica: a claim written while replay is paused is missing there until it resumes", async () => {
    const seen = await stuckClaim();
    await waitForReplay(primaryUrl, replicaUrl);
    expect(await listedKeys()).toContain(seen);

    const written = await whileReplayPaused(primaryUrl, replicaUrl, async () => {
      const key = await stuckClaim();
      const listed = await listedKeys();
      expect(listed).toContain(seen);
      expect(listed, "a list read from the primary would show the claim written a moment ago").not.toContain(key);
      // The records page reads the same way.
      const query = parseRecordsQuery({ tenant: TENANT }, { unknownParams: "ignore" });
      if (!query.ok) throw new Error("the tenant's records query did not parse");
      const data = await loadRecordsPageData(admin, query.value);
      expect(data.ok && data.listing.records.map((r) => r.key)).not.toContain(key);
      return key;
    });
    await waitForReplay(primaryUrl, replicaUrl);
    expect(await listedKeys()).toContain(written);

    // pg_stat_activity on the replica: the console's own sessions (application_name), busy during the list.
    const before = new Date();
    await listedKeys();
    const sessions = await consoleSessionsOn(replicaUrl, database);
    expect(
      sessions.some((s) => s.application_name === "idem-console" && s.state_change >= before),
      `the console's sessions on the replica: ${JSON.stringify(sessions)}`,
    ).toBe(true);
  });

  it("resolves on the primary while the replica is behind, and the record page right after shows the new status", async () => {
    const key = await stuckClaim();
    await waitForReplay(primaryUrl, replicaUrl);
    await whileReplayPaused(primaryUrl, replicaUrl, async () => {
      const response = await resolve(
        new Request(`http://console.test/api/v1/records/${key}/resolve`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ action: "complete", reason: "replica test: taken", expectedUpdatedAt: null }),
        }),
        { params: Promise.resolve({ key }) },
      );
      expect(response.status).toBe(200);
      const { auditId } = (await response.json()) as { auditId: string };
      const row = await db.idempotency.findUnique({ where: { key } });
      expect(row?.status).toBe("completed");

      // Read-your-writes: the page the resolve lands on (?resolved=<audit id>) reads the primary…
      expect(await statusOnPage(key, auditId)).toBe("completed");
      const confirmed = await loadRecordPageData(admin, key, new Date(), { resolved: auditId });
      expect(confirmed.kind === "record" && confirmed.confirmation?.resolved).toBeTruthy();
      // …while the same page reached any other way reads the replica, which has not replayed the resolve yet.
      expect(await statusOnPage(key, null)).toBe("in_progress");
      // The API's record detail reads the primary: an API caller cannot say it just wrote.
      const detail = await recordDetail(get(`/api/v1/records/${key}`), { params: Promise.resolve({ key }) });
      expect(((await detail.json()) as { record: { status: string } }).record.status).toBe("completed");
    });
    await waitForReplay(primaryUrl, replicaUrl);
    expect(await statusOnPage(key, null)).toBe("completed");
  });

  it("names the lag on the pages and in /api/health once it passes database.replicaLagWarning, and clears it after", async () => {
    await stuckClaim();
    await waitForReplay(primaryUrl, replicaUrl);
    forgetReplicaLag();
    expect(await loadReplicaLagNotice()).toBeNull();
    const caughtUp = (await (await health()).json()) as { ok: boolean; replica: { state: string } };
    expect(caughtUp).toMatchObject({ ok: true, replica: { state: "caught_up", warning: false } });

    await whileReplayPaused(primaryUrl, replicaUrl, async () => {
      await stuckClaim(); // a write the replica cannot replay
      await new Promise((r) => setTimeout(r, 1_600)); // past the 1 s warning: lag only grows while paused
      forgetReplicaLag();
      const notice = await loadReplicaLagNotice();
      expect(notice?.lagSeconds).toBeGreaterThanOrEqual(1);
      expect(notice?.bytesBehind).toBeGreaterThan(0);
      const behind = await health();
      expect(behind.status).toBe(200);
      expect(await behind.json()).toMatchObject({
        ok: true,
        replica: { state: "behind", warning: true, bytesBehind: expect.any(Number) },
      });
    });
    await waitForReplay(primaryUrl, replicaUrl);
    forgetReplicaLag();
    expect(await loadReplicaLagNotice()).toBeNull();
  });

  it("serves metrics, the scrape, the tools audit, the audit list, lookup, export and the overview with the replica (no write lands on it)", async () => {
    const key = await stuckClaim();
    await waitForReplay(primaryUrl, replicaUrl);
    // A hot standby refuses every write: a roll-up or any other write routed to it would fail these.
    for (const [name, answer] of [
      ["metrics", await metrics(get("/api/v1/metrics?window=24h"), none)],
      ["scrape", await scrape(get("/api/v1/metrics/prometheus"), none)],
      ["tools audit", await toolsAudit(get("/api/v1/tools/audit"), none)],
      ["audit list", await auditList(get("/api/v1/audit"), none)],
      ["lookup", await lookup(get(`/api/v1/lookup?q=${key.slice(0, 12)}`), none)],
      ["export", await exportRecords(get(`/api/v1/records/export?tenant=${TENANT}&format=json`), none)],
    ] as const) {
      expect(answer.status, `${name}: ${await answer.clone().text()}`).toBe(200);
      await answer.arrayBuffer();
    }
    await loadOverviewPageData(admin, new Date());
    await loadToolsPageData(admin, "24h");
    const sessions = await consoleSessionsOn(replicaUrl, database);
    expect(sessions.some((s) => s.application_name === "idem-console:export")).toBe(true);
  });
});
