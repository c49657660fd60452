import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { parseConfig } from "@/lib/config/load";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { resolveRecord } from "@/lib/resolve/resolve-record";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { routeChild, crashAtEveryStep } from "./crash-run";
import { claimsByKey, IDEMPOTENCY } from "./invariant";

// POST /api/v1/records/{key}/resolve (the route handler in a child, with a token): complete a taken
// claim, release one not taken, force-release one nobody can answer for; each killed after its
// commit and while the processor's answer is in flight.
const TENANT = "crash-resolve";
const system: Actor = { kind: "system", id: "crash", name: "crash-test", displayName: "t", role: "admin", tenants: [] };

type Case = {
  name: "complete" | "release" | "force";
  role: "operator" | "admin";
  tool: string;
  taken: boolean;
  body: Record<string, unknown>;
  action: string;
  left: string | null;
};
const CASES: Case[] = [
  {
    name: "complete",
    role: "operator",
    tool: "charge_card",
    taken: true,
    body: { action: "complete" },
    action: "record.complete",
    left: "completed",
  },
  {
    name: "release",
    role: "operator",
    tool: "charge_card",
    taken: false,
    body: { action: "release" },
    action: "record.release",
    left: null,
  },
  {
    name: "force",
    role: "admin",
    tool: "dead_tool",
    taken: false,
    body: { action: "release", force: true, confirm: "force release" },
    action: "record.force_release",
    left: null,
  },
];

describe("crash: resolve (complete, release, force) killed at its commit and its processor call", () => {
  let database: TestDatabase;
  let db: Db;
  let processor: DemoUpstream;
  let configText: string;
  let configFile: string;
  const tokens = new Map<string, { id: string; token: string }>();
  let round = 0;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url);
    processor = await startDemoProcessor();
    configText = JSON.stringify({
      tools: {
        charge_card: { processor: { type: "http", baseUrl: processor.url } },
        // Nothing listens there: the processor cannot be asked, only an admin's force releases.
        dead_tool: { processor: { type: "http", baseUrl: "http://127.0.0.1:1", timeout: "1s" } },
      },
    });
    configFile = path.join(mkdtempSync(path.join(tmpdir(), "idem-crash-resolve-")), "idem.config.json");
    writeFileSync(configFile, configText);
    for (const role of ["operator", "admin"] as const) {
      const created = await createToken(db, system, { name: `crash-${role}`, role });
      tokens.set(role, { id: created.summary.id, token: created.token });
    }
  }, 60_000);
  afterAll(async () => {
    await processor?.stop();
    await db?.$disconnect();
    await database?.drop();
  });

  for (const c of CASES) {
    it(`${c.name}: one audit row with the change, or neither; the same request again finishes it`, async () => {
      let key = "";
      const body = { ...c.body, reason: `crash test: ${c.name}`, expectedUpdatedAt: null };
      const report = await crashAtEveryStep({
        db,
        child: () =>
          routeChild(
            {
              module: "app/api/v1/records/[key]/resolve/route.ts",
              params: { key },
              url: `/api/v1/records/${key}/resolve`,
              token: tokens.get(c.role)!.token,
              body,
            },
            { DATABASE_URL: database.url, IDEM_CONFIG: configFile },
          ),
        // A forced release's question goes nowhere (connection refused): no answer to die during.
        kinds: c.name === "force" ? ["after-commit"] : ["after-commit", "during-call"],
        watched: [IDEMPOTENCY],
        claimsOf: claimsByKey,
        async prepare() {
          round += 1;
          key = createHash("sha256").update(`crash-resolve|${round}`).digest("hex");
          await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${key}, ${TENANT}, ${c.tool}, 'in_progress', now() - interval '1 hour')`;
          if (c.taken) {
            const charged = await fetch(`${processor.url}/charges`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ card: "c_4242", amount_cents: 3_000 + round, reference: key }),
            });
            expect(charged.status).toBe(200);
          }
          // Used a moment ago: the handler's fire-and-forget last_used_at write stays out of the counted steps.
          await db.apiToken.update({ where: { id: tokens.get(c.role)!.id }, data: { lastUsedAt: new Date() } });
        },
        async nextRun() {
          const actor: Actor = { ...system, role: c.role };
          const outcome = await resolveRecord(db, parseConfig(configText), actor, key, body as never);
          // Either it resolves now, or the killed run had committed and this one finds nothing to do.
          if (!outcome.ok) expect(["conflict", "not_found"]).toContain(outcome.code);
        },
        async expectDone() {
          expect((await db.idempotency.findUnique({ where: { key } }))?.status ?? null).toBe(c.left);
          expect((await db.auditLog.findMany({ where: { key } })).map((a) => a.action)).toEqual([c.action]);
        },
      });
      expect(report.points).toEqual(c.name === "force" ? ["after-commit:1"] : ["after-commit:1", "during-call:1"]);
    }, 300_000);
  }
});
