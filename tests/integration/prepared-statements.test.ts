import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, inject, it } from "vitest";
import { checkSession, startSession } from "@/lib/auth/console-sessions";
import { authenticateToken, createToken } from "@/lib/auth/tokens";
import { saveUser } from "@/lib/auth/users";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, prepareStatementsOn, preparesStatements, rawPoolOf } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { lookUpRefs } from "@/lib/records/lookup";
import { readRecordDetail } from "@/lib/records/record-detail-read";
import { findBySearchableValues } from "@/lib/search/find-by-searchable";
import { systemAdmin } from "../helpers/system-admin";

const run = randomBytes(3).toString("hex");
const TENANT = `prep-${run}`;
const KEY = `prep-key-${run}`;
const LIMITS = { maxEvents: 51, maxAudit: 50 };
const RECEIPT = `ch_prep_${run}`;
// A key the lookup finds by its ref (12 hexadecimal characters).
const HEX_KEY = `${run}${"5".repeat(58)}`;
const searchConfig = parseConfig(JSON.stringify({ tools: { charge_card: { search: { receipt: "$.id" } } } }));
const admin = systemAdmin("prepared");
const scoped: Actor = {
  kind: "user",
  id: `v-${run}`,
  name: "v@test",
  displayName: "v",
  role: "viewer",
  tenants: [TENANT],
};

// One connection each, so pg_prepared_statements on it shows what the hot-path reads left there.
const prepared = createPrismaClient(inject("databaseUrl"), 1);
prepareStatementsOn(prepared);
const plain = createPrismaClient(inject("databaseUrl"), 1);
afterAll(() => Promise.all([prepared.$disconnect(), plain.$disconnect()]));

const preparedNames = async (db: typeof plain) =>
  (await rawPoolOf(db)!.query<{ name: string }>("SELECT name FROM pg_prepared_statements ORDER BY name")).rows.map(
    (r) => r.name,
  );

describe("the hot path's statements prepared by name on a direct connection", () => {
  it("the session and token checks and the record detail are prepared once per text and answer as unprepared", async () => {
    await plain.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, response)
      VALUES (${KEY}, ${TENANT}, 'charge_card', 'completed', ${JSON.stringify({ id: RECEIPT })}::jsonb),
             (${HEX_KEY}, ${TENANT}, 'charge_card', 'in_progress', NULL)`;
    const { token } = await createToken(plain, admin, { name: `prep-${run}`, role: "viewer" });
    const user = await saveUser(plain, admin, { email: `prep-${run}@example.com`, role: "operator" });
    const session = await startSession(plain, user.id, "vitest");
    const policy = { idleMs: 30 * 60_000, maxAgeMs: 12 * 3_600_000 };
    // Eight runs: from the sixth PostgreSQL may answer from a generic plan, which must read as the custom ones.
    for (let i = 0; i < 8; i += 1) {
      // Both actors' texts (the scoped one adds its tenants' condition) on one connection: two names, no clash.
      for (const actor of [admin, scoped])
        expect(await readRecordDetail(prepared, actor, KEY, LIMITS)).toEqual(
          await readRecordDetail(plain, actor, KEY, LIMITS),
        );
      for (const actor of [admin, scoped]) {
        const found = await lookUpRefs(prepared, actor, `failed (ref ${HEX_KEY.slice(0, 12)})`, { redact: [] });
        expect(found.kind === "searched" && found.matches.map((m) => m.key)).toEqual([HEX_KEY]);
        expect(found).toEqual(await lookUpRefs(plain, actor, `failed (ref ${HEX_KEY.slice(0, 12)})`, { redact: [] }));
      }
      expect(await authenticateToken(prepared, token)).toEqual(await authenticateToken(plain, token));
      const signedIn = await checkSession(prepared, session, policy);
      expect(signedIn).toEqual({ ok: true, actor: expect.objectContaining({ id: user.id, role: "operator" }) });
      expect(signedIn).toEqual(await checkSession(plain, session, policy));
      const byReceipt = await findBySearchableValues(prepared, scoped, searchConfig, [RECEIPT]);
      expect(byReceipt.get(RECEIPT)?.map((m) => m.key)).toEqual([KEY]);
      expect(byReceipt).toEqual(await findBySearchableValues(plain, scoped, searchConfig, [RECEIPT]));
    }
    const names = await preparedNames(prepared);
    expect(names.filter((n) => n.startsWith("idem_record_detail_"))).toHaveLength(2);
    expect(names.filter((n) => n.startsWith("idem_token_check_"))).toHaveLength(1);
    expect(
      names.filter((n) => n.startsWith("idem_lookup_")),
      "one lookup text per actor's tenant condition",
    ).toHaveLength(2);
    expect(
      names.filter((n) => n.startsWith("idem_searchable_")),
      "support's search among the searchable fields, one text for the scoped reader's one value",
    ).toHaveLength(1);
    expect(names.filter((n) => n.startsWith("idem_session_check_"))).toHaveLength(1);
    expect((await readRecordDetail(prepared, scoped, KEY, LIMITS)).record?.tenant).toBe(TENANT);
    expect(await preparedNames(plain), "a client not allowed to prepare leaves no name").toEqual([]);
  });

  it("a named statement its connection does not hold (a pooler the URL does not name) is sent again unnamed, and preparing stops", async () => {
    const client = createPrismaClient(inject("databaseUrl"), 1);
    prepareStatementsOn(client);
    try {
      const before = await readRecordDetail(client, admin, KEY, LIMITS);
      // What PgBouncer without pgbouncer=true does: the next transaction runs where the name is unknown.
      await rawPoolOf(client)!.query("DEALLOCATE ALL");
      expect(await readRecordDetail(client, admin, KEY, LIMITS)).toEqual(before);
      expect(preparesStatements(client)).toBe(false);
      await readRecordDetail(client, admin, KEY, LIMITS);
      expect(await preparedNames(client)).toEqual([]);
    } finally {
      await client.$disconnect();
    }
  });

  it("the console's own client prepares on a direct URL", async () => {
    process.env.DATABASE_URL = inject("databaseUrl");
    const { getDb } = await import("@/lib/db/client");
    expect(preparesStatements(getDb())).toBe(true);
    await getDb().$disconnect();
  });
});
