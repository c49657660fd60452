import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// The route handlers themselves, with a bearer token, on this run's database: status codes and
// the {error: {code, message}} shape for every kind of bad input, never a 500.
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-api-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(process.env.IDEM_CONFIG, JSON.stringify({ tools: { charge_card: { stuckAfter: "5m" } } }));

const { GET: lookup } = await import("@/app/api/v1/lookup/route");
const { GET: record } = await import("@/app/api/v1/records/[key]/route");
const { POST: check } = await import("@/app/api/v1/records/[key]/check/route");
const { GET: explain } = await import("@/app/api/v1/keys/explain/route");

const run = randomBytes(3).toString("hex");
const TENANT = `api-${run}`;
const OTHER = `api-other-${run}`;
const system = systemAdmin("api-test");

describe("/api/v1 lookup, record, check and explain", () => {
  const db = connectTestDb();
  let allTenants: string;
  let limited: string;
  const mine = run.padEnd(12, "0") + "1".repeat(52);
  const theirs = run.padEnd(12, "0") + "2".repeat(52);

  beforeAll(async () => {
    allTenants = (await createToken(db, system, { name: `api-all-${run}`, role: "viewer" })).token;
    limited = (await createToken(db, system, { name: `api-limited-${run}`, role: "viewer", tenants: [TENANT] })).token;
    await db.idempotency.createMany({
      data: [
        { key: mine, tenant: TENANT, tool: "charge_card", status: "in_progress" },
        { key: theirs, tenant: OTHER, tool: "charge_card", status: "completed", response: { card: "c_71" } },
      ],
    });
  });

  const get = (url: string, token: string) =>
    new Request(`http://console.test${url}`, { headers: { authorization: `Bearer ${token}` } });
  const params = <P>(value: P) => ({ params: Promise.resolve(value) });
  const none = params({} as Record<string, never>);

  it("lookup: both records behind a shared ref for an all-tenant token, one for a limited token", async () => {
    const q = encodeURIComponent(`already in progress (ref ${mine.slice(0, 12)}).`);
    const all = await lookup(get(`/api/v1/lookup?q=${q}`, allTenants), none);
    expect(all.status).toBe(200);
    expect(((await all.json()) as { matches: { key: string }[] }).matches.map((m) => m.key).sort()).toEqual([
      mine,
      theirs,
    ]);
    const scoped = await lookup(get(`/api/v1/lookup?q=${q}`, limited), none);
    expect(((await scoped.json()) as { matches: { key: string }[] }).matches.map((m) => m.key)).toEqual([mine]);
  });

  it("lookup: oversized text, no ref and a missing q are 400s with a message", async () => {
    const long = await lookup(get(`/api/v1/lookup?q=${"a".repeat(10_001)}`, allTenants), none);
    expect(long.status).toBe(400);
    expect(await long.json()).toEqual({
      error: { code: "text_too_long", message: expect.stringMatching(/at most 10,000/) },
    });
    const noRef = await lookup(get(`/api/v1/lookup?q=hello`, allTenants), none);
    expect(await noRef.json()).toMatchObject({ error: { code: "no_ref" } });
    const missing = await lookup(get(`/api/v1/lookup`, allTenants), none);
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      error: { code: "bad_request", message: expect.stringMatching(/^q: required/) },
    });
  });

  it("record: 200 with the detail, 404 for another tenant's, 400 for a malformed key or a bare ref", async () => {
    const ok = await record(get(`/api/v1/records/${mine}`, limited), params({ key: mine }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      record: { key: mine, tenant: TENANT },
      repeatCaller: { kind: "in_flight" },
    });
    const hidden = await record(get(`/api/v1/records/${theirs}`, limited), params({ key: theirs }));
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toEqual({
      error: { code: "not_found", message: "No record with this key in the tenants you can see." },
    });
    const bad = await record(get(`/api/v1/records/x`, limited), params({ key: "has space" }));
    expect(bad.status).toBe(400);
    const ref = await record(get(`/api/v1/records/x`, limited), params({ key: mine.slice(0, 12) }));
    expect(await ref.json()).toMatchObject({ error: { code: "ref_not_key" } });
  });

  it("check: answers with the outcome (no processor configured here), 404 out of scope, and refuses an unknown token", async () => {
    const post = (token: string, key: string) =>
      check(
        new Request(`http://console.test/api/v1/records/${key}/check`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
        }),
        params({ key }),
      );
    const answered = await post(limited, mine);
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({
      key: mine,
      check: { outcome: "unknown", reason: "no processor configured for tool charge_card" },
    });
    expect((await post(limited, theirs)).status).toBe(404);
    // (A session POST without a same-origin Origin header is refused by apiRoute; tests/browser covers sessions.)
    expect((await post(`idem_${"x".repeat(43)}`, mine)).status).toBe(401);
  });

  it("explain: derives the key, and names the bad field of a bad request", async () => {
    const good = await explain(
      get(
        `/api/v1/keys/explain?tenant=${TENANT}&tool=charge_card&args=${encodeURIComponent('{"b":1,"a":2}')}&at=2026-03-01T12:00:00Z`,
        limited,
      ),
      none,
    );
    expect(good.status).toBe(200);
    expect(await good.json()).toMatchObject({
      derived: {
        canonical: '{"a":2,"b":1}',
        bucket: String(Math.floor(Date.parse("2026-03-01T12:00:00Z") / 1000 / 900)),
      },
    });
    const bad = await explain(get(`/api/v1/keys/explain?tenant=t&tool=x&args=%7Bnope&window=-5`, limited), none);
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { code: string; fields: { field: string }[] } };
    expect(body.error.code).toBe("bad_request");
    expect(body.error.fields.map((f) => f.field).sort()).toEqual(["args", "window"]);
  });
});
