import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { deriveKey } from "idem-guard";
import { connectTestDb } from "../helpers/db";
import { routeHandler } from "../helpers/api-routes";
import { systemAdmin } from "../helpers/system-admin";

// Support's tools through the route handlers, on this run's database: the subject filter of the
// list and the export (the same rows as SQL, within the caller's tenants; bad input a 400 that
// changes nothing), and the record's argument check (match, no match, the differing byte).
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-subject-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(process.env.IDEM_CONFIG, JSON.stringify({ tools: { charge_card: { stuckAfter: "5m" } } }));

const run = randomBytes(3).toString("hex");
const TENANT = `subj-${run}`;
const OTHER = `subj-other-${run}`;
const SUBJECT = `user_${run}`;
const system = systemAdmin("subject-test");
const ARGS = '{"card": "c_71", "amount_cents": 24000}';
const CHANGED = '{"card": "c_71", "amount_cents": 24001}';
const CREATED = new Date("2026-03-01T12:03:20Z");

const list = await routeHandler("records", "GET");
const exportFile = await routeHandler("records/export", "GET");
const checkArgs = await routeHandler("records/[key]/check-arguments", "POST");

describe("subject filter and argument check, through the API", () => {
  const db = connectTestDb();
  let all: string;
  let limited: string;
  // A record whose key the reference writer would derive from ARGS at CREATED.
  const derived = deriveKey({
    tenant: TENANT,
    subject: SUBJECT,
    tool: "charge_card",
    argumentsJson: ARGS,
    at: CREATED,
  });
  const theirs = deriveKey({ tenant: OTHER, subject: SUBJECT, tool: "charge_card", argumentsJson: ARGS, at: CREATED });

  beforeAll(async () => {
    all = (await createToken(db, system, { name: `subj-all-${run}`, role: "viewer" })).token;
    limited = (await createToken(db, system, { name: `subj-lim-${run}`, role: "viewer", tenants: [TENANT] })).token;
    const key = (i: number) => createHash("sha256").update(`subj|${run}|${i}`).digest("hex");
    const rows = [
      ...Array.from({ length: 7 }, (_, i) => ({ key: key(i), tenant: TENANT, subject: SUBJECT })),
      ...Array.from({ length: 4 }, (_, i) => ({ key: key(100 + i), tenant: OTHER, subject: SUBJECT })),
      // Near misses an exact match must not take: a prefix, another case, a longer one, no subject.
      { key: key(200), tenant: TENANT, subject: SUBJECT.slice(0, -1) },
      { key: key(201), tenant: TENANT, subject: SUBJECT.toUpperCase() },
      { key: key(202), tenant: TENANT, subject: `${SUBJECT}_2` },
      { key: key(203), tenant: TENANT, subject: null },
    ];
    await db.idempotency.createMany({
      data: rows.map((r, i) => ({
        ...r,
        tool: "charge_card",
        status: i % 3 === 0 ? "in_progress" : "completed",
        createdAt: new Date(Date.now() - i * 60_000),
      })),
    });
    await db.idempotency.createMany({
      data: [
        {
          key: derived.key,
          tenant: TENANT,
          subject: SUBJECT,
          tool: "charge_card",
          status: "completed",
          createdAt: CREATED,
        },
        {
          key: theirs.key,
          tenant: OTHER,
          subject: SUBJECT,
          tool: "charge_card",
          status: "completed",
          createdAt: CREATED,
        },
      ],
    });
  });

  const get = (url: string, token: string) =>
    new Request(`http://console.test${url}`, { headers: { authorization: `Bearer ${token}` } });
  const post = (url: string, token: string, body: unknown) =>
    new Request(`http://console.test${url}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const none = { params: Promise.resolve({}) };
  const keyed = (key: string) => ({ params: Promise.resolve({ key }) });

  async function sqlKeys(tenants: string[] | null): Promise<string[]> {
    const rows = tenants
      ? await db.$queryRaw<
          { key: string }[]
        >`SELECT key FROM idempotency WHERE subject = ${SUBJECT} AND tenant = ANY(${tenants}::text[]) ORDER BY created_at DESC, key DESC`
      : await db.$queryRaw<
          { key: string }[]
        >`SELECT key FROM idempotency WHERE subject = ${SUBJECT} ORDER BY created_at DESC, key DESC`;
    return rows.map((r) => r.key);
  }
  async function apiKeys(token: string, extra = ""): Promise<string[]> {
    const response = await list(
      get(`/api/v1/records?subject=${encodeURIComponent(SUBJECT)}&limit=200${extra}`, token),
      none,
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      filter: { subject: string | null };
      records: { key: string; subject: string }[];
    };
    expect(body.filter.subject).toBe(SUBJECT);
    expect(body.records.every((r) => r.subject === SUBJECT)).toBe(true);
    return body.records.map((r) => r.key);
  }
  async function csvKeys(token: string): Promise<string[]> {
    const response = await exportFile(
      get(`/api/v1/records/export?format=csv&subject=${encodeURIComponent(SUBJECT)}`, token),
      none,
    );
    expect(response.status).toBe(200);
    const lines = (await response.text()).split(/\r?\n/).filter((l) => l !== "" && !l.startsWith("#"));
    expect(lines[0]?.startsWith("key,ref,tenant,subject,")).toBe(true);
    return lines.slice(1).map((l) => l.split(",")[0]!);
  }
  async function jsonKeys(token: string): Promise<string[]> {
    const response = await exportFile(
      get(`/api/v1/records/export?format=json&subject=${encodeURIComponent(SUBJECT)}`, token),
      none,
    );
    const body = (await response.json()) as { count: number; records: { key: string }[] };
    expect(body.count).toBe(body.records.length);
    return body.records.map((r) => r.key);
  }

  it("answers exactly the SQL rows of the subject, in the list, the CSV and the JSON export", async () => {
    const expected = await sqlKeys(null);
    expect(expected).toHaveLength(7 + 4 + 2);
    expect(await apiKeys(all)).toEqual(expected);
    expect(await csvKeys(all)).toEqual(expected);
    expect(await jsonKeys(all)).toEqual(expected);
  });

  it("keeps a tenant-limited caller to their tenant, filter or not", async () => {
    const expected = await sqlKeys([TENANT]);
    expect(expected).toHaveLength(7 + 1);
    expect(await apiKeys(limited)).toEqual(expected);
    expect(await csvKeys(limited)).toEqual(expected);
    // Naming the other tenant is answered as unknown, not with its rows.
    const other = await list(get(`/api/v1/records?subject=${SUBJECT}&tenant=${OTHER}`, limited), none);
    expect(other.status).toBe(404);
    // With another filter beside it: the conditions are ANDed.
    expect(await apiKeys(all, `&tenant=${OTHER}`)).toEqual(await sqlKeys([OTHER]));
  });

  it("refuses a repeated, too long or control-character subject with a 400 naming it, changing nothing", async () => {
    const count = async () => [await db.idempotency.count(), await db.auditLog.count()];
    const before = await count();
    for (const [query, message] of [
      [`subject=${SUBJECT}&subject=other`, /^subject: given 2 times; give it once$/],
      [`subject=${"s".repeat(201)}`, /^subject: at most 200 characters$/],
      [`subject=a%01b`, /^subject: control characters are not allowed$/],
      [`subject=a%00b`, /^subject: control characters are not allowed$/],
    ] as const) {
      for (const [handler, url] of [
        [list, `/api/v1/records?${query}`],
        [exportFile, `/api/v1/records/export?format=csv&${query}`],
      ] as const) {
        const response = await handler(get(url, all), none);
        expect(response.status, url).toBe(400);
        const body = (await response.json()) as { error: { code: string; message: string; params: string[] } };
        expect(body.error.code).toBe("bad_request");
        expect(body.error.message).toMatch(message);
        expect(body.error.params).toEqual(["subject"]);
      }
    }
    expect(await count()).toEqual(before);
  });

  it("check-arguments: yes in this record's bucket for the arguments behind it, no for one field changed", async () => {
    const audits = await db.auditLog.count();
    const url = `/api/v1/records/${derived.key}/check-arguments`;
    const yes = await checkArgs(post(url, all, { args: ARGS }), keyed(derived.key));
    expect(yes.status).toBe(200);
    expect(await yes.json()).toMatchObject({
      key: derived.key,
      record: { tenant: TENANT, subject: SUBJECT, tool: "charge_card", createdAt: CREATED.toISOString() },
      comparison: {
        verdict: "match",
        match: {
          scheme: "python-json",
          position: "same",
          bucket: derived.bucket,
          startsAt: "2026-03-01T12:00:00.000Z",
          endsAt: "2026-03-01T12:15:00.000Z",
        },
      },
      // The same arguments in the other tenant are another record, outside what it compares.
      otherRecords: [],
    });
    const no = await checkArgs(post(url, all, { args: CHANGED }), keyed(derived.key));
    expect(await no.json()).toMatchObject({ comparison: { verdict: "no_match", match: null, reference: null } });
    const diffed = await checkArgs(post(url, all, { args: CHANGED, reference: ARGS }), keyed(derived.key));
    expect(await diffed.json()).toMatchObject({
      comparison: { verdict: "no_match", reference: { proven: true, diff: { equal: false, offset: 20 } } },
    });
    // Read-only: nothing audited, nothing changed.
    expect(await db.auditLog.count()).toBe(audits);
  });

  it("check-arguments: names the record these arguments are instead, in the next bucket", async () => {
    // The customer's call a bucket later (a retry 15 minutes on): same arguments, its own key.
    const later = new Date(CREATED.getTime() + 900_000);
    const retry = deriveKey({
      tenant: TENANT,
      subject: SUBJECT,
      tool: "charge_card",
      argumentsJson: CHANGED,
      at: later,
    });
    const first = deriveKey({
      tenant: TENANT,
      subject: SUBJECT,
      tool: "charge_card",
      argumentsJson: CHANGED,
      at: CREATED,
    });
    await db.idempotency.createMany({
      data: [
        {
          key: first.key,
          tenant: TENANT,
          subject: SUBJECT,
          tool: "charge_card",
          status: "completed",
          createdAt: CREATED,
        },
        {
          key: retry.key,
          tenant: TENANT,
          subject: SUBJECT,
          tool: "charge_card",
          status: "completed",
          createdAt: later,
        },
      ],
    });
    const response = await checkArgs(
      post(`/api/v1/records/${first.key}/check-arguments`, limited, { args: CHANGED }),
      keyed(first.key),
    );
    expect(await response.json()).toMatchObject({
      comparison: { verdict: "match", match: { position: "same" } },
      otherRecords: [{ key: retry.key, position: "next", scheme: "python-json", tenant: TENANT }],
    });
  });

  it("check-arguments: bad JSON, a bad window or an unknown field is a 400 naming it; another tenant's record a 404", async () => {
    const url = `/api/v1/records/${derived.key}/check-arguments`;
    const bad = await checkArgs(post(url, all, { args: "{amount: 1" }), keyed(derived.key));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      error: {
        code: "bad_request",
        message: expect.stringMatching(/^args: not valid JSON — /),
        fields: [{ field: "args" }],
      },
    });
    for (const body of [
      { args: ARGS, window: 0 },
      { args: ARGS, window: 1.5 },
      { args: "" },
      { args: 7 },
      { args: ARGS, bogus: 1 },
    ]) {
      const response = await checkArgs(post(url, all, body), keyed(derived.key));
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("bad_request");
    }
    const hidden = await checkArgs(
      post(`/api/v1/records/${theirs.key}/check-arguments`, limited, { args: ARGS }),
      keyed(theirs.key),
    );
    expect(hidden.status).toBe(404);
    expect(await hidden.json()).toMatchObject({ error: { code: "not_found" } });
  });
});
