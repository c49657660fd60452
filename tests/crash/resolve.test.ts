import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import type { Actor } from "@/lib/identity/actor";
import { resolveRecord } from "@/lib/resolve/resolve-record";
import { routeChild, crashAtEveryStep } from "./crash-run";
import { markTokenUsed, useCrashDatabase, useCrashProcessor } from "./crash-setup";
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
  const database = useCrashDatabase();
  const upstream = useCrashProcessor("resolve", {
    // Nothing listens there: the processor cannot be asked, only an admin's force releases.
    dead_tool: { processor: { type: "http", baseUrl: "http://127.0.0.1:1", timeout: "1s" } },
  });
  const tokens = new Map<string, { id: string; token: string }>();
  let round = 0;

  beforeAll(async () => {
    for (const role of ["operator", "admin"] as const) {
      const created = await createToken(database.db, system, { name: `crash-${role}`, role });
      tokens.set(role, { id: created.summary.id, token: created.token });
    }
  }, 60_000);

  for (const c of CASES) {
    it(`${c.name}: one audit row with the change, or neither; the same request again finishes it`, async () => {
      const { db } = database;
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
            { DATABASE_URL: database.url, IDEM_CONFIG: upstream.configFile },
          ),
        // A forced release's question goes nowhere (connection refused): no answer to die during.
        kinds: c.name === "force" ? ["after-commit"] : ["after-commit", "during-call"],
        watched: [IDEMPOTENCY],
        claimsOf: claimsByKey,
        async prepare() {
          round += 1;
          key = createHash("sha256").update(`crash-resolve|${round}`).digest("hex");
          await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${key}, ${TENANT}, ${c.tool}, 'in_progress', now() - interval '1 hour')`;
          if (c.taken) await upstream.charge(key, 3_000 + round);
          await markTokenUsed(db, tokens.get(c.role)!.id);
        },
        async nextRun() {
          const actor: Actor = { ...system, role: c.role };
          const outcome = await resolveRecord(db, upstream.config(), actor, key, body as never);
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
