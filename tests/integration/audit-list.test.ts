import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { createToken } from "@/lib/auth/tokens";
import { listAudit, parseAuditQuery, type AuditQuery } from "@/lib/audit/list-audit";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// The route handler itself, with bearer tokens, on this run's database (as lookup-detail-api does).
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-audit-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(process.env.IDEM_CONFIG, JSON.stringify({ redact: ["$..card"] }));
const { GET } = await import("@/app/api/v1/audit/route");

const run = randomBytes(3).toString("hex");
const ACME = `acme-${run}`;
const GLOBEX = `globex-${run}`;
/** Every entry this file writes has an actor starting with this, so filters can be tested in a shared database. */
const PREFIX = `audit-${run}`;
const REDACT = ["$..card"];

const reader = (role: Actor["role"], tenants: string[] = []): Actor => ({
  kind: "user",
  id: `r-${role}`,
  name: `${role}@audit.test`,
  displayName: role,
  role,
  tenants,
});
const operator = reader("operator");
const key = (i: number) => createHash("sha256").update(`audit|${run}|${i}`).digest("hex");

function query(extra: Partial<AuditQuery> = {}): AuditQuery {
  return {
    id: null,
    actor: PREFIX,
    action: null,
    key: null,
    tenant: null,
    from: null,
    to: null,
    cursor: null,
    limit: 25,
    ...extra,
  };
}

describe("the audit log: listing, filters, paging, scoping, redaction", () => {
  const db = connectTestDb();
  const base = new Date(Date.now() - 3_600_000);

  beforeAll(async () => {
    // 60 entries, one a minute: even ones acme's, odd ones globex's; every third a release; the
    // last five about tenant-less things (a token, a trim batch).
    const rows = Array.from({ length: 60 }, (_, i) => ({
      at: new Date(base.getTime() + i * 60_000),
      actor: i % 2 === 0 ? `${PREFIX}-omar@example.test` : `${PREFIX}-system:reconciler`,
      actorRole: "operator",
      action: i >= 55 ? "token.create" : i % 3 === 0 ? "record.release" : "record.complete",
      key: i >= 55 ? null : key(i),
      tenant: i >= 55 ? null : i % 2 === 0 ? ACME : GLOBEX,
      reason: `entry ${i}`,
      before: i >= 55 ? undefined : { key: key(i), status: "in_progress", response: null },
      after: i >= 55 ? undefined : { status: "completed", response: { charge: "ch_1", card: "c_4242" } },
      evidence: i >= 55 ? undefined : { outcome: "taken", receipt: { card: "c_4242", amount_cents: 100 } },
    }));
    await db.auditLog.createMany({ data: rows });
    // Entry 4's record still exists; the others were released or trimmed.
    await db.idempotency.create({ data: { key: key(4), tenant: ACME, tool: "charge_card", status: "completed" } });
  });

  it("lists newest first and pages through all entries with the keyset cursor, without repeats", async () => {
    const seen: string[] = [];
    let cursor: AuditQuery["cursor"] = null;
    let pages = 0;
    for (;;) {
      const page = await listAudit(db, operator, query({ cursor }), { redact: REDACT });
      pages += 1;
      seen.push(...page.entries.map((e) => e.reason ?? ""));
      if (!page.nextCursor) break;
      const parsed = parseAuditQuery({ cursor: page.nextCursor }, { unknownParams: "reject" });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
      cursor = parsed.value.cursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 60 }, (_, i) => `entry ${59 - i}`));
  });

  it("filters by actor prefix, action, key or ref prefix, tenant and time", async () => {
    const reasons = async (extra: Partial<AuditQuery>) =>
      (await listAudit(db, operator, query({ limit: 100, ...extra }), { redact: REDACT })).entries.map((e) => e.reason);
    expect(await reasons({ actor: `${PREFIX}-system:` })).toHaveLength(30);
    expect(await reasons({ action: "record.release" })).toHaveLength(19); // 0, 3, …, 54
    expect(await reasons({ action: "record.release", tenant: ACME })).toHaveLength(10); // 0, 6, …, 54
    expect(await reasons({ key: key(7) })).toEqual(["entry 7"]);
    expect(await reasons({ key: key(7).slice(0, 12) })).toEqual(["entry 7"]);
    expect(await reasons({ key: "%" })).toEqual([]); // LIKE wildcards are literal
    const seventh = (await listAudit(db, operator, query({ key: key(7) }), { redact: REDACT })).entries[0];
    expect(await reasons({ id: seventh?.id ?? "0" })).toEqual(["entry 7"]); // one entry by its id
    expect(await reasons({ id: seventh?.id ?? "0", key: key(8) })).toEqual([]); // and every other filter still holds
    expect(
      await reasons({ from: new Date(base.getTime() + 50 * 60_000), to: new Date(base.getTime() + 53 * 60_000) }),
    ).toEqual(["entry 52", "entry 51", "entry 50"]);
  });

  it("links the record only while it exists", async () => {
    const page = await listAudit(db, operator, query({ limit: 100 }), { redact: REDACT });
    const exists = page.entries.filter((e) => e.recordExists).map((e) => e.reason);
    expect(exists).toEqual(["entry 4"]);
    expect(page.entries.find((e) => e.reason === "entry 4")).toMatchObject({ key: key(4), ref: key(4).slice(0, 12) });
  });

  it("a tenant-limited reader sees only entries of their tenants, never tenant-less ones", async () => {
    const limited = reader("viewer", [ACME]);
    const page = await listAudit(db, limited, query({ limit: 100 }), { redact: REDACT });
    expect(page.entries).toHaveLength(28); // even entries 0…54
    expect(new Set(page.entries.map((e) => e.tenant))).toEqual(new Set([ACME]));
    expect((await listAudit(db, limited, query({ tenant: GLOBEX }), { redact: REDACT })).entries).toHaveLength(0);
  });

  it("every role gets before/after/evidence redacted (reveal is per record, audited)", async () => {
    const forViewer = (await listAudit(db, reader("viewer"), query({ key: key(8) }), { redact: REDACT })).entries[0];
    expect(forViewer?.after).toEqual({ status: "completed", response: { charge: "ch_1", card: "[redacted]" } });
    expect(forViewer?.evidence).toEqual({ outcome: "taken", receipt: { card: "[redacted]", amount_cents: 100 } });
    expect(forViewer?.redactedPaths).toEqual(["$['after']['response']['card']", "$['evidence']['receipt']['card']"]);
    const forOperator = (await listAudit(db, operator, query({ key: key(8) }), { redact: REDACT })).entries[0];
    expect(forOperator?.evidence).toEqual({ outcome: "taken", receipt: { card: "[redacted]", amount_cents: 100 } });
    expect(forOperator?.redactedPaths).toEqual(forViewer?.redactedPaths);
  });

  it("the query parser names unknown and bad parameters", () => {
    expect(
      parseAuditQuery(new URLSearchParams("actor=x&colour=red&sort=at"), { unknownParams: "reject" }),
    ).toMatchObject({
      ok: false,
      problems: [{ param: "colour,sort", message: expect.stringContaining('unknown parameters "colour", "sort"') }],
    });
    expect(parseAuditQuery(new URLSearchParams("colour=red"), { unknownParams: "ignore" })).toMatchObject({ ok: true });
    const bad = parseAuditQuery(new URLSearchParams("from=yesterday&limit=7&cursor=nope&action=drop%20table"), {
      unknownParams: "reject",
    });
    expect(bad.ok ? [] : bad.problems.map((p) => p.param).sort()).toEqual(["action", "cursor", "from", "limit"]);
    expect(parseAuditQuery(new URLSearchParams("id=12x"), { unknownParams: "reject" })).toMatchObject({
      ok: false,
      problems: [{ param: "id" }],
    });
    expect(parseAuditQuery(new URLSearchParams("id=42"), { unknownParams: "reject" })).toMatchObject({
      ok: true,
      value: { id: "42" },
    });
    expect(
      parseAuditQuery(new URLSearchParams("from=2026-11-29&to=2026-11-28"), { unknownParams: "reject" }),
    ).toMatchObject({ ok: false, problems: [{ param: "from" }] });
  });

  describe("GET /api/v1/audit", () => {
    let viewerToken: string;
    let acmeToken: string;
    const system = systemAdmin(`audit-api-${run}`, { displayName: "t" });
    const get = (url: string, token: string) =>
      GET(new Request(`http://console.test${url}`, { headers: { authorization: `Bearer ${token}` } }), {
        params: Promise.resolve({}),
      });

    beforeAll(async () => {
      viewerToken = (await createToken(db, system, { name: `audit-viewer-${run}`, role: "viewer" })).token;
      acmeToken = (await createToken(db, system, { name: `audit-acme-${run}`, role: "viewer", tenants: [ACME] })).token;
    });

    it("answers a page, redacted for a viewer and scoped to a limited token's tenants", async () => {
      const response = await get(`/api/v1/audit?actor=${PREFIX}&key=${key(8).slice(0, 12)}`, viewerToken);
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        entries: { reason: string; after: unknown }[];
        nextCursor: string | null;
      };
      expect(body.entries.map((e) => e.reason)).toEqual(["entry 8"]);
      expect(body.entries[0]?.after).toMatchObject({ response: { card: "[redacted]" } });
      expect(body.nextCursor).toBeNull();
      // Globex's entries exist, but for an acme-only token globex is not a tenant at all.
      const limited = await get(`/api/v1/audit?actor=${PREFIX}&tenant=${GLOBEX}`, acmeToken);
      expect(limited.status).toBe(404);
      expect(await limited.json()).toEqual({
        error: { code: "unknown_tenant", message: `no tenant '${GLOBEX}' among yours` },
      });
      const own = (await (await get(`/api/v1/audit?actor=${PREFIX}`, acmeToken)).json()) as {
        entries: { tenant: string | null }[];
      };
      expect(own.entries.every((e) => e.tenant === ACME)).toBe(true);
    });

    // (Without a token the handler asks next-auth for a session, which needs a real request scope:
    // tests/browser/audit checks that path against the served console.)
    it("400 naming unknown or bad parameters", async () => {
      const unknown = await get("/api/v1/audit?actr=omar&limit=50", viewerToken);
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({
        error: { code: "bad_request", message: expect.stringContaining('"actr"'), params: ["actr"] },
      });
      const bad = await get("/api/v1/audit?from=last%20week", viewerToken);
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ error: { code: "bad_request", params: ["from"] } });
    });
  });
});
