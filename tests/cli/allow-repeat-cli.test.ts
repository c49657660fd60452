import { createHash, randomBytes } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { connectTestDb } from "../helpers/db";
import { runCli } from "../helpers/run-cli";

// `idem allow-repeat`: by key or ref, with a reason, confirmed by --yes (no terminal here); the
// row is deleted with its snapshot audited as the CLI actor; refusals exit 2 and change nothing.
const url = inject("databaseUrl");
const run = randomBytes(3).toString("hex");
const TENANT = `allow-cli-${run}`;

describe("idem allow-repeat", { timeout: 120_000 }, () => {
  const db = connectTestDb();
  let n = 0;
  async function record(status: "completed" | "in_progress"): Promise<string> {
    n += 1;
    const key = createHash("sha256").update(`allow-cli|${run}|${n}`).digest("hex");
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, response, created_at, updated_at) VALUES (${key}, ${TENANT}, 'charge_card', ${status}, ${JSON.stringify({ id: `ch_${n}` })}::jsonb, now() - interval '5 minutes', now())`;
    return key;
  }
  const exists = async (key: string) => (await db.idempotency.count({ where: { key } })) === 1;
  const audits = (key: string) => db.auditLog.findMany({ where: { key, action: "record.allow_repeat" } });

  it("by ref with --yes: deletes the row, audits it as the CLI with its snapshot, and says what the next call does", async () => {
    const key = await record("completed");
    const result = await runCli(["allow-repeat", key.slice(0, 12), "--reason", "ticket 9: second purchase", "--yes"], {
      DATABASE_URL: url,
    });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`repeat allowed for ${key}`);
    expect(result.stdout).toContain("the next identical call will charge again");
    expect(await exists(key)).toBe(false);
    const [entry] = await audits(key);
    expect(entry).toMatchObject({ actorRole: "admin", reason: "ticket 9: second purchase", tenant: TENANT });
    expect(entry!.actor).toMatch(/^system:cli \(/);
    expect(entry!.before).toMatchObject({ key, status: "completed", response: { id: expect.any(String) } });
  });

  it("refusals exit 2 with one line naming what is wrong, and change nothing", async () => {
    const done = await record("completed");
    const claim = await record("in_progress");
    const cases: [string[], RegExp][] = [
      [["allow-repeat", done, "--yes"], /--reason/],
      [["allow-repeat", done, "--reason", " ", "--yes"], /--reason: say why/],
      [["allow-repeat", done, "--reason", "ticket 10"], /--yes: .*charge again.*Confirm with --yes/],
      [["allow-repeat", "not a key!\u0001", "--reason", "ticket 10", "--yes"], /<key-or-ref>/],
      [["allow-repeat", claim, "--reason", "ticket 10", "--yes"], /in_progress, not completed/],
      [["allow-repeat", "f".repeat(64), "--reason", "ticket 10", "--yes"], /<key-or-ref>: no record/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, { DATABASE_URL: url });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
      // One line (commander adds its usage hint after a usage error).
      expect(
        result.stderr
          .trim()
          .split("\n")
          .filter((l) => !l.startsWith("(run with --help")),
      ).toHaveLength(1);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(await exists(done)).toBe(true);
    expect(await exists(claim)).toBe(true);
    expect(await audits(done)).toEqual([]);
  });
});
