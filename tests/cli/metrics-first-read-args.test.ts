import { spawnSync } from "node:child_process";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { tsxNodeArgs } from "../helpers/idem-command";

const SERVER = process.env.DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

async function benchDatabases(): Promise<number> {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'idem_bench_%'",
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

// tools/bench/metrics-first-read.ts refuses a bad argument in one line, exit 2, before it makes a database.
describe("the first-metrics-read bench's arguments", () => {
  it.each([
    [["abc"], "tenants: expected a whole number from 1 to 100,000."],
    [["0"], "tenants: expected a whole number from 1 to 100,000."],
    [["20", "-1"], "tools: expected a whole number from 1 to 100."],
    [["20", "5", "1.5"], "warm reads: expected a whole number from 1 to 10,000."],
    [["1", "2", "3", "4"], "expected at most 3 arguments, got 4."],
  ])("%j: exit 2 naming the argument", async (args, message) => {
    const before = await benchDatabases();
    const run = spawnSync(
      process.execPath,
      ["--conditions=react-server", ...tsxNodeArgs("tools/bench/metrics-first-read.ts"), ...args],
      { encoding: "utf8", env: { ...process.env, DATABASE_URL: SERVER } },
    );
    expect(run.status).toBe(2);
    expect(run.stderr.trim()).toBe(`metrics-first-read: ${message}`);
    expect(run.stdout).toBe("");
    expect(await benchDatabases()).toBe(before);
  });
});
