import "server-only";
import { performance } from "node:perf_hooks";
import type pg from "pg";
import type { Db } from "@/lib/db/prisma";
import type { BenchCase } from "./bench-cases";
import type { CapturedStatement, CapturingPool } from "./capturing-pool";
import { checkPlan, planShape, type ExplainOutput } from "./plan-check";

export type StatementPlan = {
  sql: string;
  executionMs: number;
  /** JIT compilation's share of executionMs; null when the statement was not compiled. */
  jitMs: number | null;
  shape: string[];
  problems: string[];
};

export type SqlSideResult = {
  samples: number[];
  /** Statements one run of the operation sends (the first input's). */
  statementCount: number;
  plans: StatementPlan[];
  /** Inputs this side used up (fresh cases): the API side takes the ones after. */
  inputsUsed: number;
};

/** Statements worth an EXPLAIN: queries and writes, not transaction control, settings or the planner's own EXPLAINs. */
const EXPLAINABLE = /^\s*(SELECT|WITH|UPDATE|INSERT|DELETE)\b/i;
const NOT_EXPLAINED = /^\s*SELECT\s+(set_config|pg_advisory|1\s*$)/i;

/**
 * The SQL side of a case: the console's function runs once per input on the capturing pool, then
 * the recorded statements are replayed on one plain connection, `warmup` times untimed and
 * `iterations` times timed (a run = every statement the operation sends, one after another), and
 * each statement is explained with ANALYZE and BUFFERS. A fresh case captures on its first input
 * and replays on the next ones, with that input substituted in every parameter.
 */
export async function measureSqlSide(
  benchCase: BenchCase,
  capture: { pool: CapturingPool; db: Db },
  client: pg.Client,
  options: { iterations: number; warmup: number; big: ReadonlyMap<string, number> },
): Promise<SqlSideResult> {
  const { iterations, warmup } = options;
  const runs: (() => CapturedStatement[])[] = [];
  let inputsUsed = 0;
  let explained: CapturedStatement[];
  await benchCase.prepare?.(capture.db);

  if (benchCase.fresh) {
    const [template, ...rest] = benchCase.inputs;
    if (template === undefined || rest.length < warmup + iterations + 1) {
      throw new Error(
        `${benchCase.name}: ${benchCase.inputs.length} inputs, ${warmup + iterations + 2} needed for the SQL side`,
      );
    }
    const statements = await captureOnce(benchCase, capture, template);
    const withInput = (input: string) =>
      statements.map((s) => ({ text: s.text, values: s.values.map((v) => substitute(v, template, input)) }));
    explained = withInput(rest[0]!);
    for (let k = 0; k < warmup + iterations; k += 1) runs.push(() => withInput(rest[1 + k]!));
    inputsUsed = 2 + warmup + iterations;
  } else {
    // One untimed call first: a read that settles a rollup on its way (an hour that closed during the run:
    // ~860 ms of base-table counting at 10 M rows, once an hour) would otherwise be captured and replayed
    // as if every request paid it.
    if (benchCase.inputs[0] !== undefined) await benchCase.console(capture.db, benchCase.inputs[0]);
    const captured: CapturedStatement[][] = [];
    for (const input of benchCase.inputs) captured.push(await captureOnce(benchCase, capture, input));
    explained = captured[0] ?? [];
    for (let k = 0; k < warmup + iterations; k += 1) runs.push(() => captured[k % captured.length]!);
  }

  const plans: StatementPlan[] = [];
  for (const statement of explained) {
    if (!EXPLAINABLE.test(statement.text) || NOT_EXPLAINED.test(statement.text)) continue;
    plans.push(await explain(client, statement, options.big));
  }

  const samples: number[] = [];
  for (const [k, run] of runs.entries()) {
    const statements = run();
    const started = performance.now();
    for (const statement of statements) await client.query(statement.text, statement.values);
    if (k >= warmup) samples.push(performance.now() - started);
  }
  return { samples, statementCount: explained.length, plans, inputsUsed };
}

async function captureOnce(
  benchCase: BenchCase,
  capture: { pool: CapturingPool; db: Db },
  input: string,
): Promise<CapturedStatement[]> {
  const { result, statements } = await capture.pool.capture(() => benchCase.console(capture.db, input));
  const failed = result as { ok?: unknown; message?: unknown } | null;
  if (failed && failed.ok === false)
    throw new Error(`${benchCase.name}: the console's function refused: ${String(failed.message)}`);
  if (result === null)
    throw new Error(`${benchCase.name}: the console's function found nothing for input ${input.slice(0, 80)}`);
  return statements;
}

function substitute(value: unknown, from: string, to: string): unknown {
  return typeof value === "string" ? value.split(from).join(to) : value;
}

async function explain(
  client: pg.Client,
  statement: CapturedStatement,
  big: ReadonlyMap<string, number>,
): Promise<StatementPlan> {
  // Inside a transaction that is rolled back: EXPLAIN ANALYZE runs writes for real.
  await client.query("BEGIN");
  try {
    const { rows } = await client.query<{ "QUERY PLAN": ExplainOutput[] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`,
      statement.values,
    );
    const output = rows[0]?.["QUERY PLAN"][0];
    if (!output) throw new Error(`no plan for ${oneLine(statement.text)}`);
    return {
      sql: oneLine(statement.text),
      executionMs: Math.round((output["Execution Time"] ?? 0) * 1000) / 1000,
      jitMs: jitMsOf(output),
      shape: planShape(output.Plan),
      problems: checkPlan(output.Plan, big),
    };
  } finally {
    await client.query("ROLLBACK");
  }
}

export function oneLine(sql: string, max = 160): string {
  const text = sql.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The report's plan block of one case: each statement's EXPLAIN ANALYZE time (and its JIT compilation's), then its shape. */
export function planText(plans: StatementPlan[]): string {
  return plans
    .map((p) => {
      const jit = p.jitMs === null ? "" : ` (JIT compilation ${p.jitMs.toFixed(3)} ms of it)`;
      return [`-- ${p.executionMs.toFixed(3)} ms${jit}: ${p.sql}`, ...p.shape.map((line) => `   ${line}`)].join("\n");
    })
    .join("\n");
}

/** What EXPLAIN's JSON says of JIT: its compilation time in ms, or null when the statement was not compiled. */
export function jitMsOf(output: ExplainOutput): number | null {
  return output.JIT ? Math.round((output.JIT.Timing?.Total ?? 0) * 1000) / 1000 : null;
}
