import "server-only";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { createProgressBar } from "@/lib/terminal/progress";
import { DEFAULT_REDACT_PATHS } from "@/lib/config/schema";
import { embeddedDataDir } from "@/lib/db/embedded-record";
import { startDemoWorld, type DemoWorld } from "@/tools/demo/demo-world";
import type { ReferenceSnapshot } from "@/tools/demo/upstream/upstream-types";
import { DEFAULT_HISTORY_HOURS, generateDemoHistory } from "@/tools/demo/traffic/generate-demo-history";
import { createPrismaClient } from "@/lib/db/prisma";
import { cliActor } from "@/lib/identity/cli-actor";
import { recountAfterBackfill } from "@/lib/metrics/recount";
import { recordProcessorSideEffects } from "@/lib/metrics/side-effect-report";
import { env } from "@/lib/config/environment";
import { parseConfig } from "@/lib/config/load";
import { DEMO_CONFIG_NAME } from "@/lib/cli/cli-config";
import { removeDemoRecord, writeDemoRecord } from "@/lib/cli/demo-record";
import { refreshListings } from "@/lib/annotations/refresh-listings";
import { resolveDemoClaims } from "@/tools/demo/demo-resolutions";

/** The demo world's usual ports (idem.config.example.json names them); any free port serves when one is taken. */
const PREFERRED_PORTS = { processorPort: 4010, carrierPort: 4011, mcpPort: 4020 };

export type RunningDemo = { world: DemoWorld; configFile: string; stop(): Promise<void> };

/**
 * The demo world behind `npm run demo`: processor, carrier and the shop's MCP server, 48 h of
 * history driven through them when the table is empty, and an idem.config.json pointing the
 * console at them.
 */
export async function launchDemoWorld(databaseUrl: string): Promise<RunningDemo> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });
  // An idle connection lost to a database restart is replaced on the next query; unheard, it would end the launcher.
  pool.on("error", (error) => console.error(`demo world: lost a database connection (${error.message})`));
  let world: DemoWorld;
  try {
    world = await startDemoWorld({ db: pool, ...PREFERRED_PORTS }).catch((error: unknown) => {
      if ((error as { code?: string }).code !== "EADDRINUSE") throw error;
      return startDemoWorld({ db: pool });
    });
  } catch (error) {
    await pool.end();
    throw error;
  }
  // The processor and carrier are in-memory fakes: keep what they settled across demo restarts,
  // so "ask the processor" about yesterday's stuck rows still gets yesterday's answer.
  const ledgerFile = path.join(embeddedDataDir(), "demo-upstream-references.json");
  restoreReferences(world, ledgerFile);
  const stop = async () => {
    removeDemoRecord();
    saveReferences(world, ledgerFile);
    await world.stop();
    await pool.end();
  };
  try {
    const { rows } = await pool.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM idempotency) AS any");
    const hours = historyHours();
    const firstStart = !rows[0]?.any && hours > 0;
    if (firstStart) {
      await generateHistory(world, pool, databaseUrl, hours);
      saveReferences(world, ledgerFile);
    }
    const configFile = path.join(embeddedDataDir(), DEMO_CONFIG_NAME);
    mkdirSync(path.dirname(configFile), { recursive: true });
    const configText = `${JSON.stringify({ ...world.config, redact: [...DEFAULT_REDACT_PATHS] }, null, 2)}\n`;
    writeFileSync(configFile, configText);
    // The CLI beside this demo reads the same file (lib/cli/cli-config.ts).
    writeDemoRecord({ pid: process.pid, configFile, startedAt: new Date().toISOString() });
    if (firstStart) {
      await listDemoTools(databaseUrl, configText, configFile);
      await resolveDemoWork(databaseUrl, configText, configFile);
    }
    console.log(
      `demo world: processor ${world.processor.url}, carrier ${world.carrier.url}, MCP server ${world.mcp.url}; config ${configFile}`,
    );
    return { world, configFile, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * A first start lists the shop's MCP server once, as an operator's "Refresh listings" would
 * (audited, as the CLI): the Tools page and the metrics' known tools then have a listing from
 * the first look, and admins a Verify… button. A failure is said, never fatal: the page's button
 * does the same.
 */
async function listDemoTools(databaseUrl: string, configText: string, configFile: string): Promise<void> {
  const db = createPrismaClient(databaseUrl, 2);
  try {
    const outcome = await refreshListings(db, parseConfig(configText, configFile), cliActor());
    const listed = outcome.ok ? outcome.listings : [];
    for (const listing of listed)
      console.log(
        listing.ok
          ? `  listed ${listing.tools.length} tools of ${listing.server} (the Tools page's first listing)`
          : `  could not list ${listing.server}: ${listing.reason} (press Refresh listings on the Tools page)`,
      );
  } finally {
    await db.$disconnect();
  }
}

/** A first start's resolutions by the demo's operator and admin (tools/demo/demo-resolutions.ts), said line by line. */
async function resolveDemoWork(databaseUrl: string, configText: string, configFile: string): Promise<void> {
  const db = createPrismaClient(databaseUrl, 2);
  try {
    const done = await resolveDemoClaims(db, parseConfig(configText, configFile));
    if (done.length > 0) console.log("  the demo's people at work (the Audit page's first resolutions):");
    for (const line of done) console.log(`    ${line}`);
  } finally {
    await db.$disconnect();
  }
}

// IDEM_DEMO_HISTORY_HOURS: how much history a first start writes (0: none, for tests that bring their own rows).
function historyHours(): number {
  return env().IDEM_DEMO_HISTORY_HOURS ?? DEFAULT_HISTORY_HOURS;
}

async function generateHistory(world: DemoWorld, pool: pg.Pool, databaseUrl: string, hours: number): Promise<void> {
  const started = Date.now();
  const bar = createProgressBar();
  let barStarted = false;
  console.log(`the table is empty: driving ${hours} h of simulated tool calls through the shop's MCP server…`);
  const counts = await generateDemoHistory({
    databaseUrl,
    processorUrl: world.processor.url,
    carrierUrl: world.carrier.url,
    seed: 1,
    hours,
    end: new Date(),
    onProgress: ({ done, total }) => {
      if (!barStarted) bar.start(total, "  calls");
      barStarted = true;
      bar.update(done);
    },
  });
  bar.stop();
  // The demo processor and carrier count side effects per reference: the metrics' "side effects per
  // operation" (as seed-demo reports them; without this the demo's column read "not reported").
  const reported = await recordProcessorSideEffects(pool, {
    ...world.processor.stats().sideEffectsByReference,
    ...world.carrier.stats().sideEffectsByReference,
  });
  console.log(
    `  ${counts.calls} calls in ${((Date.now() - started) / 1000).toFixed(1)} s; side effects reported for ${reported.operations} operations`,
  );
  // Hours rolled up by an earlier start (the table emptied since) would hide the new history.
  const db = createPrismaClient(databaseUrl, 2);
  try {
    const recount = await recountAfterBackfill(db, cliActor(), new Date(started - hours * 3_600_000), new Date());
    if (recount?.ok) console.log(`  metrics counted again from ${recount.from}: earlier roll-ups held those hours`);
  } finally {
    await db.$disconnect();
  }
  // A bulk load leaves the planner's statistics describing an empty table (and the embedded
  // database has no autovacuum to notice): the console's estimates need them fresh.
  await pool.query("ANALYZE");
}

type SavedReferences = { processor: ReferenceSnapshot; carrier: ReferenceSnapshot };

function saveReferences(world: DemoWorld, file: string): void {
  const saved: SavedReferences = {
    processor: world.processor.exportReferences(),
    carrier: world.carrier.exportReferences(),
  };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(saved));
}

function restoreReferences(world: DemoWorld, file: string): void {
  if (!existsSync(file)) return;
  try {
    const saved = JSON.parse(readFileSync(file, "utf8")) as SavedReferences;
    world.processor.importReferences(saved.processor ?? {});
    world.carrier.importReferences(saved.carrier ?? {});
  } catch {
    console.warn(`demo world: ignoring unreadable ${file}`);
  }
}
