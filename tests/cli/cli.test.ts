import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { authenticateToken } from "@/lib/auth/tokens";
import { SETTLE_MS } from "@/lib/metrics/rollup";
import { connectTestDb } from "../helpers/db";
import { runCli } from "../helpers/run-cli";
import { createTestDatabase } from "../helpers/test-database";

const url = inject("databaseUrl");

function expectOneCleanLine(stderr: string) {
  const lines = stderr.trim().split("\n");
  expect(lines.filter((l) => l.startsWith("idem: ") || l.startsWith("error: ")).length).toBeGreaterThanOrEqual(1);
  expect(stderr).not.toMatch(/^\s+at /m); // no stack trace
}

describe("npm run idem", () => {
  const db = connectTestDb();

  it("migrate: applies on a fresh database, then reports nothing to do", async () => {
    const fresh = await createTestDatabase({ migrate: false });
    try {
      const first = await runCli(["migrate", "--json"], { DATABASE_URL: fresh.url });
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout).applied.length).toBeGreaterThan(0);
      const second = await runCli(["migrate", "--json"], { DATABASE_URL: fresh.url });
      expect(JSON.parse(second.stdout)).toMatchObject({ applied: [] });
      const text = await runCli(["migrate"], { DATABASE_URL: fresh.url });
      expect(text.stdout).toMatch(/database is up to date/);
    } finally {
      await fresh.drop();
    }
  });

  // Three CLI runs over 72 hours of an empty table: 16–18 s alone, past 30 s on a busy machine.
  it(
    "rollup: rolls closed hours and settled minutes of a fresh database, then finds nothing to do",
    { timeout: 90_000 },
    async () => {
      const fresh = await createTestDatabase();
      try {
        // An hour is closed SETTLE_MS after its end (lib/metrics/rollup.ts), not at the wall clock's hour.
        const closedHour = () => Math.floor((Date.now() - SETTLE_MS) / 3_600_000);
        const startedHour = closedHour();
        const first = await runCli(["rollup", "--json"], { DATABASE_URL: fresh.url });
        expect(first.code, first.stderr).toBe(0);
        const result = JSON.parse(first.stdout) as {
          rolledUp: string[];
          closedThrough: string;
          minutes: { rolledUp: number };
        };
        // An empty table still has its hours closed and minutes settled: 72 hours looked back, 60–125 minutes of slices.
        expect(result.rolledUp).toHaveLength(72);
        expect(result.minutes.rolledUp).toBeGreaterThanOrEqual(60);
        expect(result.minutes.rolledUp).toBeLessThanOrEqual(125);
        const beforeSecond = closedHour();
        const second = await runCli(["rollup"], { DATABASE_URL: fresh.url });
        // An hour that closed between the two runs is the second run's to roll up (CI once ran across 04:00,
        // and once across 17:05, when 16:00 closed).
        const hoursClosedSince = closedHour() - startedHour;
        expect(second.stdout).toMatch(
          new RegExp(
            `rolled up ${hoursClosedSince === 0 ? "0" : "[01]"} hours? .*\\n.*rolled up [0-${hoursClosedSince === 0 ? 2 : 3}] minute slices?`,
          ),
        );
        // After a backfill: the hours from 3 h ago discarded (2 or 3 of them are closed), counted again, audited.
        const recount = await runCli(["rollup", "--recount-from", "3h"], { DATABASE_URL: fresh.url });
        expect(recount.code, recount.stderr).toBe(0);
        const [, discarded, counted, auditId] =
          /^discarded ([23]) rolled hours and \d+ minute slices from \S+:00:00\.000Z; counted (\d) hours \(\S+ … \S+\) and \d+ minute slices again from the base tables in \d+ ms \(audit row (\d+)\)$/m.exec(
            recount.stdout,
          ) ?? [];
        expect(discarded, recount.stdout).toBeDefined();
        // It counts what it discarded, and an hour that closed after the second roll-up (CI ran across 06:05 once).
        expect(Number(counted) - Number(discarded), recount.stdout).toBeGreaterThanOrEqual(0);
        expect(Number(counted) - Number(discarded), recount.stdout).toBeLessThanOrEqual(closedHour() - beforeSecond);
        const audit = new pg.Client({ connectionString: fresh.url });
        await audit.connect();
        try {
          const rows = await audit.query(
            "SELECT id::text AS id, actor_role FROM audit_log WHERE action = 'metrics.recount'",
          );
          expect(rows.rows).toEqual([{ id: auditId, actor_role: "admin" }]);
        } finally {
          await audit.end();
        }
      } finally {
        await fresh.drop();
      }
    },
  );

  it("token create prints the token once as JSON; list never shows it; revoke takes effect at once", async () => {
    const created = await runCli(
      ["token", "create", "--role", "operator", "--name", "cli-test", "--tenant", "acme", "--json"],
      { DATABASE_URL: url },
    );
    expect(created.code, created.stderr).toBe(0);
    const { token, id } = JSON.parse(created.stdout) as { token: string; id: string };
    expect((await authenticateToken(db, token)).ok).toBe(true);

    const listed = await runCli(["token", "list", "--json"], { DATABASE_URL: url });
    expect(listed.stdout).toContain(id);
    expect(listed.stdout).not.toContain(token);

    const revoked = await runCli(["token", "revoke", id], { DATABASE_URL: url });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(await authenticateToken(db, token)).toEqual({ ok: false, reason: "token revoked" });
  });

  it.each([
    [["token", "create", "--role", "root", "--name", "x"], {}, 2, /--role.*expected viewer, operator or admin/],
    [["token", "create", "--role", "viewer"], {}, 2, /required option '--name/],
    [
      ["token", "create", "--role", "viewer", "--name", "x", "--expires", "soon"],
      {},
      2,
      /--expires: expected a duration/,
    ],
    [["no-such-command"], {}, 2, /unknown command/],
    // A misspelt option is named as such, not as the required one it was meant to be.
    [
      ["token", "create", "--role", "viewer", "--nmae", "ci"],
      {},
      2,
      /unknown option '--nmae'\n\(Did you mean --name\?\)/,
    ],
    [
      ["key", "--tenant", "t", "--tol", "charge_card", "--args", "{}"],
      {},
      2,
      /unknown option '--tol'\n\(Did you mean --tool\?\)/,
    ],
    [["key", "--tenant", "t", "--args", "{}"], {}, 2, /^error: required option '--tool <tool>' not specified$/m],
    [["migrate"], { DATABASE_URL: "mysql://u:secret@db/idem" }, 2, /DATABASE_URL must start with postgresql/],
    [["migrate"], { DATABASE_URL: "postgresql://postgres@127.0.0.1:1/idem" }, 1, /connection refused/],
    [["token", "revoke", "does-not-exist"], {}, 2, /No token with id, prefix or name/],
  ])("%j: exits with a code and one clear line", async (args, env, code, message) => {
    const tokensBefore = await db.apiToken.count();
    const result = await runCli(args, { DATABASE_URL: url, ...env });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toContain("secret");
    expectOneCleanLine(result.stderr);
    expect(await db.apiToken.count()).toBe(tokensBefore);
  });
});
