import "server-only";
import { InvalidArgumentError, type Command } from "commander";
import pg from "pg";
import { createProgressBar } from "@/lib/terminal/progress";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { withConnection } from "@/lib/cli/with-database";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { migrate } from "@/lib/db/migrate";
import { UserError } from "@/lib/errors/user-error";
import { summarizeDemoTables } from "@/tools/demo/demo-table-summary";
import { startDemoWorld } from "@/tools/demo/demo-world";
import { DEMO_TENANTS } from "@/tools/demo/traffic/demo-population";
import { DEFAULT_HISTORY_HOURS, generateDemoHistory } from "@/tools/demo/traffic/generate-demo-history";
import { recordProcessorSideEffects } from "@/lib/metrics/side-effect-report";
import { createPrismaClient } from "@/lib/db/prisma";
import { cliActor } from "@/lib/identity/cli-actor";
import { recountAfterBackfill, type RecountOutcome } from "@/lib/metrics/recount";

const MAX_HOURS = 168;

export function parseSeedOption(value: string): number {
  const seed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(seed) || seed > 0xffffffff)
    throw new InvalidArgumentError("expected a whole number from 0 to 4294967295.");
  return seed;
}

export function parseHoursOption(value: string): number {
  const hours = Number(value);
  if (value.trim() === "" || !Number.isFinite(hours) || hours <= 0 || hours > MAX_HOURS)
    throw new InvalidArgumentError(`expected a number of hours above 0 and at most ${MAX_HOURS}.`);
  return hours;
}

type Options = { seed: number; hours: number; json?: boolean };

export function registerSeedDemo(program: Command): void {
  program
    .command("seed-demo")
    .description(
      "write a simulated history of MCP tool calls (through the demo shop and the idempotency guard) into the database",
    )
    .option("--seed <n>", "same seed, same history", parseSeedOption, 1)
    .option(
      "--hours <h>",
      `hours of history ending now (at most ${MAX_HOURS})`,
      parseHoursOption,
      DEFAULT_HISTORY_HOURS,
    )
    .option("--json", "print the counts as JSON")
    .action(runCommand((options: Options) => withConnection((connection) => seedDemo(connection.url, options))));
}

async function seedDemo(url: string, options: Options): Promise<void> {
  const started = Date.now();
  await migrate(url).catch((error: unknown) => {
    if (error instanceof UserError) throw error;
    throw new UserError(describeDatabaseError(error, url), 1);
  });
  const pool = new pg.Pool({ connectionString: url, max: 20 });
  const world = await startDemoWorld({ db: pool });
  const bar = createProgressBar({ enabled: !options.json });
  try {
    const end = new Date();
    let barStarted = false;
    const history = await generateDemoHistory({
      databaseUrl: url,
      processorUrl: world.processor.url,
      carrierUrl: world.carrier.url,
      seed: options.seed,
      hours: options.hours,
      end,
      onProgress: ({ done, total }) => {
        if (!barStarted) bar.start(total, "seed-demo: calls");
        barStarted = true;
        bar.update(done);
      },
    });
    bar.stop();
    const tables = await summarizeDemoTables(
      pool,
      DEMO_TENANTS.map((t) => t.tenant),
      new Date(),
    );
    const processor = world.processor.stats();
    const carrier = world.carrier.stats();
    // The demo upstreams count side effects per reference: the metrics' "side effects per operation".
    await recordProcessorSideEffects(pool, { ...processor.sideEffectsByReference, ...carrier.sideEffectsByReference });
    const recount = await recountSeededHours(url, new Date(end.getTime() - options.hours * 3_600_000));
    const report = {
      seed: options.seed,
      hours: options.hours,
      end: end.toISOString(),
      calls: history.calls,
      callsByTool: history.callsByTool,
      skippedCalls: history.skipped,
      protocolErrors: history.protocolErrors,
      scenariosByKind: history.scenariosByKind,
      rowsByStatus: tables.rowsByStatus,
      inProgress: tables.inProgress,
      eventsByKind: tables.eventsByKind,
      upstream: {
        processorSideEffects: processor.sideEffects,
        processorDuplicatesPrevented: processor.duplicatesPrevented,
        carrierShipments: carrier.sideEffects,
        receiptEmails: history.receiptEmails,
      },
      metricsRecount: recount,
      durationMs: Date.now() - started,
    };
    if (options.json) printJson(report);
    else printReport(report);
    if (history.protocolErrors > 0) {
      console.error(
        `idem: ${history.protocolErrors} calls failed at the MCP layer, e.g. ${history.protocolErrorSamples[0] ?? "?"}`,
      );
      process.exitCode = 1;
    }
  } finally {
    await world.stop();
    await pool.end();
  }
}

/**
 * The history is a backfill: hours a running console has rolled up already would not show it.
 * Those are counted again (audited); a fresh database has none.
 */
async function recountSeededHours(url: string, from: Date): Promise<RecountOutcome | null> {
  const db = createPrismaClient(url, 2);
  try {
    return await recountAfterBackfill(db, cliActor(), from, new Date());
  } finally {
    await db.$disconnect();
  }
}

function describeRecount(recount: RecountOutcome): string {
  if (recount.ok)
    return `metrics:  counted again from ${recount.from} (${recount.discarded.hours} rolled-up hours held seeded rows; audit row ${recount.auditId})`;
  if (recount.reason === "trimmed")
    return `metrics:  NOT counted again: the history reaches before the newest trim's cutoff ${recount.trimmedBefore}; run \`idem rollup --recount-from ${recount.earliestFrom}\` for the hours after it`;
  return `metrics:  NOT counted again (${recount.reason})`;
}

function line(values: Record<string, number>): string {
  return (
    Object.entries(values)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ") || "none"
  );
}

function printReport(report: {
  seed: number;
  hours: number;
  calls: number;
  callsByTool: Record<string, Record<string, number>>;
  rowsByStatus: Record<string, number>;
  inProgress: { stuck: number; recent: number };
  eventsByKind: Record<string, number>;
  upstream: {
    processorSideEffects: number;
    processorDuplicatesPrevented: number;
    carrierShipments: number;
    receiptEmails: number;
  };
  metricsRecount: RecountOutcome | null;
  durationMs: number;
}): void {
  console.log(
    `seeded ${report.calls} tool calls (${report.hours} h, seed ${report.seed}) in ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  console.log(
    `rows:     ${line(report.rowsByStatus)} (in_progress: ${report.inProgress.stuck} stuck > 5 min, ${report.inProgress.recent} recent)`,
  );
  console.log(`events:   ${line(report.eventsByKind)}`);
  for (const [tool, outcomes] of Object.entries(report.callsByTool).sort())
    console.log(`calls:    ${tool}: ${line(outcomes)}`);
  const u = report.upstream;
  console.log(
    `upstream: processor ${u.processorSideEffects} side effects (${u.processorDuplicatesPrevented} repeats answered from its ledger), carrier ${u.carrierShipments} shipments, ${u.receiptEmails} receipt emails`,
  );
  if (report.metricsRecount) console.log(describeRecount(report.metricsRecount));
}
