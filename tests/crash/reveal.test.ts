import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { parseConfig } from "@/lib/config/load";
import type { Actor } from "@/lib/identity/actor";
import { revealResponse } from "@/lib/records/reveal-response";
import { crashAtEveryStep, routeChild } from "./crash-run";
import { markTokenUsed, useCrashDatabase } from "./crash-setup";
import { IDEMPOTENCY, type ClaimsOf } from "./invariant";

// POST /api/v1/records/{key}/reveal (the route handler in a child, an operator's token), killed just
// before and just after its commit: a reveal changes no row, and nothing unmasked leaves the process
// unless its record.reveal row committed first.
const system: Actor = { kind: "system", id: "crash", name: "crash-test", displayName: "t", role: "admin", tenants: [] };
const operator: Actor = { ...system, role: "operator" };
const EMAIL = "dana.crash@example.com";
const REASON = "ticket 4711: the customer asks which address";
const revealClaims: ClaimsOf = (row) => (row.action === "record.reveal" && row.key ? [{ disclosed: row.key }] : []);

describe("crash: reveal killed before and after its commit", () => {
  const database = useCrashDatabase();
  let configFile: string;
  let token: { id: string; token: string };
  let round = 0;
  let key = "";
  const reveals = () => database.db.auditLog.count({ where: { key, action: "record.reveal" } });

  beforeAll(async () => {
    configFile = path.join(mkdtempSync(path.join(tmpdir(), "idem-crash-reveal-")), "idem.config.json");
    writeFileSync(configFile, "{}");
    const created = await createToken(database.db, system, { name: "crash-reveal", role: "operator" });
    token = { id: created.summary.id, token: created.token };
  }, 60_000);

  it("discloses only what its audit row records, and changes no row", async () => {
    const { db } = database;
    const report = await crashAtEveryStep({
      db,
      child: () =>
        routeChild(
          {
            module: "app/api/v1/records/[key]/reveal/route.ts",
            params: { key },
            url: `/api/v1/records/${key}/reveal`,
            token: token.token,
            body: { reason: REASON },
          },
          { DATABASE_URL: database.url, IDEM_CONFIG: configFile },
        ),
      kinds: ["before-commit", "after-commit"],
      watched: [IDEMPOTENCY],
      claimsOf: revealClaims,
      async prepare() {
        round += 1;
        key = createHash("sha256").update(`crash-reveal|${round}`).digest("hex");
        await db.$executeRaw`
          INSERT INTO idempotency (key, tenant, tool, status, response, created_at, updated_at)
          VALUES (${key}, 'acme', 'ship_parcel', 'completed', ${JSON.stringify({ parcel: "p_1", contact: { email: EMAIL } })}::jsonb, now() - interval '1 hour', now() - interval '1 hour')`;
        await markTokenUsed(db, token.id);
      },
      async checkChild(result) {
        if (result.stdout.includes(EMAIL)) expect(await reveals(), "disclosed without its audit row").toBe(1);
        else expect(result.killedAt, "an uninterrupted reveal answers the response").not.toBeNull();
      },
      async nextRun() {
        const outcome = await revealResponse(db, parseConfig("{}"), operator, key, { reason: REASON });
        expect(outcome.ok && JSON.stringify(outcome.response)).toContain(EMAIL);
      },
      async expectDone() {
        expect(await reveals()).toBeGreaterThanOrEqual(1);
      },
    });
    expect(report.points).toEqual(["before-commit:1", "after-commit:1"]);
  }, 120_000);
});
