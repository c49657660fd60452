import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { cliActor } from "@/lib/identity/cli-actor";
import { startDemoWorld, type DemoWorld } from "@/tools/demo/demo-world";
import { resolveDemoClaims } from "@/tools/demo/demo-resolutions";
import { seedDemoUsers } from "@/tools/demo/demo-users";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

// A first demo start's resolutions (tools/demo/demo-resolutions.ts), on a database of its own: the
// demo's fixed tenants must hold only this file's claims.
describe("the demo's people at work", () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  let db: Db;
  let world: DemoWorld;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    db = createPrismaClient(database.url, 2);
    world = await startDemoWorld({ db: pool });
  });
  afterAll(async () => {
    await world?.stop();
    await db?.$disconnect();
    await pool?.end();
    await database?.drop();
  });

  async function stuck(tenant: string, tool: string, minutesAgo: number): Promise<string> {
    const key = createHash("sha256").update(`demo-resolutions|${tenant}|${tool}|${minutesAgo}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at)
       VALUES ($1, $2, 'user_1', $3, 'in_progress', now() - make_interval(mins => $4))`,
      [key, tenant, tool, minutesAgo],
    );
    return key;
  }

  const audited = async (key: string) =>
    (
      await pool.query<{ action: string; actor: string; tenant: string | null; reason: string | null }>(
        "SELECT action, actor, tenant, reason FROM audit_log WHERE key = $1 ORDER BY id",
        [key],
      )
    ).rows;
  const statusOf = async (key: string) =>
    (await pool.query<{ status: string }>("SELECT status FROM idempotency WHERE key = $1", [key])).rows[0]?.status ??
    null;

  it("without the demo accounts nothing is resolved; with them, each claim as the processor answers, audited with its tenant and reason", async () => {
    const config = parseConfig(JSON.stringify(world.config));
    const taken = await stuck("acme", "charge_card", 60);
    const younger = await stuck("acme", "charge_card", 30);
    const notTaken = await stuck("globex", "charge_card", 50);
    const fresh = await stuck("initech", "charge_card", 1);
    const email = await stuck("acme", "send_receipt_email", 40);
    const charged = await fetch(`${world.processor.url}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ card: "c_4242", amount_cents: 1_500, reference: taken }),
    });
    expect(charged.status).toBe(200);

    expect(await resolveDemoClaims(db, config)).toEqual([]);
    expect(await statusOf(taken)).toBe("in_progress");

    await seedDemoUsers(db, cliActor());
    expect(await resolveDemoClaims(db, config)).toEqual([
      `completed ${taken.slice(0, 12)} (charge_card, acme) as operator@demo.test`,
      `released ${notTaken.slice(0, 12)} (charge_card, globex) as operator@demo.test`,
      `force-released ${email.slice(0, 12)} (send_receipt_email, acme) as admin@demo.test`,
    ]);
    expect(await audited(taken)).toEqual([
      {
        action: "record.complete",
        actor: "operator@demo.test",
        tenant: "acme",
        reason: "ticket 4411: customer asked about a charge stuck in progress",
      },
    ]);
    expect(await audited(notTaken)).toMatchObject([
      { action: "record.release", actor: "operator@demo.test", tenant: "globex" },
    ]);
    expect(await audited(email)).toMatchObject([
      { action: "record.force_release", actor: "admin@demo.test", tenant: "acme" },
    ]);
    expect([await statusOf(taken), await statusOf(notTaken), await statusOf(email)]).toEqual(["completed", null, null]);
    // Only each tenant's oldest stuck charge: the younger one and the one not stuck yet are left.
    expect([await statusOf(younger), await statusOf(fresh)]).toEqual(["in_progress", "in_progress"]);
    expect([...(await audited(younger)), ...(await audited(fresh))]).toEqual([]);
  }, 60_000);
});
