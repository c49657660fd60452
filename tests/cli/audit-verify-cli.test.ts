import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";
import { runCli } from "../helpers/run-cli";

// `idem audit verify`: exit 0 with a summary, 1 naming the first bad row and why, 2 for bad input;
// every run recorded. A database of its own: the chain is broken here on purpose.
let database: TestDatabase;
let owner: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  owner = new pg.Client({ connectionString: database.url });
  await owner.connect();
  await owner.query(
    `INSERT INTO audit_log (actor, actor_role, action, reason) SELECT 'system:cli-test', 'admin', 'cli.row', 'r' || g FROM generate_series(1, 30) g`,
  );
});
afterAll(async () => {
  await owner?.end();
  await database?.drop();
});

const verify = (...args: string[]) => runCli(["audit", "verify", ...args], { DATABASE_URL: database.url });
const ids = async () =>
  (await owner.query<{ id: string }>("SELECT id::text FROM audit_log ORDER BY chain_seq")).rows.map((r) => r.id);
const lastRun = async () =>
  (
    await owner.query(
      "SELECT ok, rows::int, through_id::text, first_bad_id::text, problem, from_id::text FROM audit_chain_verification ORDER BY id DESC LIMIT 1",
    )
  ).rows[0];

async function asOwner(sql: string): Promise<void> {
  await owner.query(`BEGIN; ALTER TABLE audit_log DISABLE TRIGGER audit_log_append_only; ${sql};
                     ALTER TABLE audit_log ENABLE TRIGGER audit_log_append_only; COMMIT`);
}

describe("idem audit verify", { timeout: 120_000 }, () => {
  it("exits 0 with rows, the last id and the time on an untouched chain, and records the run", async () => {
    const all = await ids();
    const result = await verify("--batch", "100");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(
        `^audit chain verified: 30 rows through id ${all.at(-1)} in \\d+\\.\\d\\d s \\(head hash [0-9a-f]{64}\\)\\n$`,
      ),
    );
    expect(await lastRun()).toEqual({
      ok: true,
      rows: 30,
      through_id: all.at(-1),
      first_bad_id: null,
      problem: null,
      from_id: null,
    });

    const from = await verify("--from", all[20]!, "--json");
    expect(from.code).toBe(0);
    expect(JSON.parse(from.stdout)).toMatchObject({ ok: true, rows: 10, fromId: all[20], throughId: all.at(-1) });
  });

  it("exits 1 naming a changed row (content), then the row after a deleted one (link)", async () => {
    const all = await ids();
    await asOwner(`UPDATE audit_log SET actor = 'someone else' WHERE id = ${all[11]}`);
    const changed = await verify();
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain(`idem: audit chain broken at row ${all[11]} (place 12): content changed`);
    expect(changed.stdout).toContain(`checked 12 rows`);
    expect(changed.stdout).toContain(`rows matched through id ${all[10]}`);
    expect(await lastRun()).toMatchObject({
      ok: false,
      first_bad_id: all[11],
      problem: "content",
      through_id: all[10],
    });
    await asOwner(`UPDATE audit_log SET actor = 'system:cli-test' WHERE id = ${all[11]}`);

    await asOwner(`DELETE FROM audit_log WHERE id = ${all[4]}`);
    const deleted = await verify();
    expect(deleted.code).toBe(1);
    expect(deleted.stderr).toContain(`idem: audit chain broken at row ${all[5]} (place 6): link broken`);
    expect(deleted.stderr).toContain("removed or slipped in");
    expect(await lastRun()).toMatchObject({ ok: false, first_bad_id: all[5], problem: "link" });
  });

  it("refuses bad input: exit 2 for an id that is no number, 1 for an id no row has", async () => {
    const word = await verify("--from", "abc");
    expect(word.code).toBe(2);
    expect(word.stderr).toContain("expected an audit row's id, a whole number");
    const none = await verify("--from", "999999999");
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("idem: --from: no audit row has id 999999999");
  });
});
