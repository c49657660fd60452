import type pg from "pg";
import type { Prisma } from "@/generated/prisma/client";

/**
 * PostgreSQL plans a prepared statement's first five executions for their values, then keeps a generic plan
 * if it costs no more than those did: a test runs it this many times before asking which it kept.
 */
export const EXECUTIONS_TO_WEIGH_GENERIC = 8;

/** Runs `sql` as the named prepared statement `name`, `times` times; each run's rows go to `check`. */
export async function runPrepared<Row extends pg.QueryResultRow>(
  client: pg.Client,
  name: string,
  sql: Prisma.Sql,
  check: (rows: Row[], run: number) => void,
  times = EXECUTIONS_TO_WEIGH_GENERIC,
): Promise<void> {
  for (let run = 0; run < times; run += 1)
    check((await client.query<Row>({ name, text: sql.text, values: sql.values })).rows, run);
}

/** How many executions of this session's prepared statement `name` ran on its generic plan. */
export async function genericPlansOf(client: pg.Client, name: string): Promise<number> {
  const { rows } = await client.query<{ generic_plans: string }>(
    "SELECT generic_plans FROM pg_prepared_statements WHERE name = $1",
    [name],
  );
  return Number(rows[0]?.generic_plans ?? 0);
}

/** The generic plan of `sql` (`plan_cache_mode = force_generic_plan`), as EXPLAIN's text, for its values. */
export async function genericPlanOf(client: pg.Client, name: string, sql: Prisma.Sql): Promise<string> {
  const literal = (v: unknown) =>
    Array.isArray(v) ? client.escapeLiteral(`{${v.join(",")}}`) : client.escapeLiteral(String(v));
  await client.query("SET plan_cache_mode = force_generic_plan");
  try {
    await client.query(`PREPARE ${name} AS ${sql.text}`);
    const { rows } = await client.query<{ "QUERY PLAN": string }>(
      `EXPLAIN EXECUTE ${name}(${sql.values.map(literal).join(", ")})`,
    );
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  } finally {
    await client.query("RESET plan_cache_mode");
  }
}
