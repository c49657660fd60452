import "server-only";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cliActor } from "@/lib/identity/cli-actor";
import { launchDemoWorld, type RunningDemo } from "@/lib/cli/demo-launch";
import { ensureProductionBuild, nextBin } from "@/lib/build/next-build";
import { analyzeStaleTablesAt } from "@/lib/db/analyze-tables";
import { openDatabaseConnection, ownerUrl } from "@/lib/db/connection";
import { embeddedDataDir } from "@/lib/db/embedded-record";
import { migrate } from "@/lib/db/migrate";
import { behindTransactionPooler, poolerLimitsProblem } from "@/lib/db/pooler";
import { consoleTimeouts } from "@/lib/db/timeouts";
import { getConfig, parseConfig } from "@/lib/config/load";
import { loadCliConfig } from "@/lib/cli/cli-config";
import { runSearchIndexes } from "@/lib/search/run-search-indexes";
import { createPrismaClient } from "@/lib/db/prisma";
import { seedDemoUsers, DEMO_USERS } from "@/tools/demo/demo-users";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { UserError } from "@/lib/errors/user-error";
import { childEnvironment, env } from "@/lib/config/environment";

export type ConsoleServerOptions = { port: number; host: string; demo: boolean; rebuild?: boolean };

/**
 * Starts the console the way users run it: a database (DATABASE_URL or the embedded one served
 * by this process), migrations, then `next start` as a child with DATABASE_URL pointing at it.
 * Ctrl-C stops the child, then the database. Resolves with the child's exit code.
 */
export async function runConsoleServer(options: ConsoleServerOptions): Promise<number> {
  // The demo serves the configuration it writes; `serve` the one the CLI's rule finds, said on stderr.
  const served = options.demo ? null : loadCliConfig();
  const connection = await openDatabaseConnection();
  try {
    if (connection.source !== "env") console.log(`embedded database: ${connection.url} (data in ${embeddedDataDir()})`);
    // Migrations as the owner (DATABASE_MIGRATE_URL) when the console serves as a least-privilege role.
    await migrate(ownerUrl(connection), {
      onApplied: (name, ms) => console.log(`applied migration ${name} (${ms} ms)`),
    }).catch((error: unknown) => {
      if (error instanceof UserError) throw error;
      throw new UserError(describeDatabaseError(error, ownerUrl(connection)), 1);
    });
    // Behind a transaction pooler the role carries the console's limits (lib/db/pooler.ts): never serve without them.
    if (behindTransactionPooler(connection.url)) {
      const problem = await poolerLimitsProblem(
        connection.url,
        consoleTimeouts("interactive", (served?.config ?? getConfig()).database),
      );
      if (problem) throw new UserError(problem, 1);
    }
    // The embedded database has no autovacuum: fresh statistics now, not at its first periodic pass.
    if (connection.source !== "env") await analyzeStaleTablesAt(connection.url);
    // The build (a child process) and the demo world's history run side by side.
    const build = ensureProductionBuild({ force: options.rebuild });
    build.catch(() => {}); // handled where it is awaited; not an unhandled rejection meanwhile
    let demo: RunningDemo | undefined;
    try {
      if (options.demo) {
        const db = createPrismaClient(connection.url, 1);
        try {
          const created = await seedDemoUsers(db, cliActor());
          if (created > 0) console.log(`created ${created} demo accounts`);
        } finally {
          await db.$disconnect();
        }
        demo = await launchDemoWorld(connection.url);
      }
      // After migrations, like them: the searchable fields' indexes of the configuration the console will serve.
      const config = demo
        ? parseConfig(readFileSync(demo.configFile, "utf8"), demo.configFile)
        : (served?.config ?? getConfig());
      await runSearchIndexes(connection, config, (what) => console.log(`search index: ${what}`));
      await build;
      return await startNext(options, connection.url, demo?.configFile ?? served?.file ?? undefined);
    } finally {
      await build.catch(() => {}); // never leave a build running behind a failed launch
      await demo?.stop();
    }
  } finally {
    await connection.release();
  }
}

async function startNext(options: ConsoleServerOptions, databaseUrl: string, configFile?: string): Promise<number> {
  const publicUrl = env().NEXTAUTH_URL ?? `http://localhost:${options.port}`;
  const childEnv = childEnvironment({
    DATABASE_URL: databaseUrl,
    NEXTAUTH_URL: publicUrl,
    NEXTAUTH_SECRET: env().NEXTAUTH_SECRET ?? localSecret(),
    NEXT_TELEMETRY_DISABLED: "1",
  });
  if (configFile) childEnv.IDEM_CONFIG = configFile;
  if (options.demo) {
    childEnv.IDEM_DEMO = "1";
    childEnv.IDEM_DEMO_ALLOW_PRODUCTION = "1"; // `idem demo` is the explicit request
  }
  const child = spawn(process.execPath, [nextBin(), "start", "-p", String(options.port), "-H", options.host], {
    env: childEnv,
    stdio: "inherit",
  });
  const stop = () => child.kill("SIGTERM");
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  void announceWhenReady(options, publicUrl, child.pid);
  const code = await new Promise<number>((resolve) => child.on("exit", (c, signal) => resolve(c ?? (signal ? 0 : 1))));
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  return code;
}

async function announceWhenReady(options: ConsoleServerOptions, publicUrl: string, pid: number | undefined) {
  const health = `http://${options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${options.port}/api/health`;
  for (let i = 0; i < 120; i += 1) {
    try {
      const response = await fetch(health);
      if (response.ok) {
        console.log(`\nIdem Console is up at ${publicUrl} (pid ${pid}). Ctrl-C stops it.`);
        if (options.demo) {
          console.log(
            `Demo sign-ins, password "${DEMO_PASSWORD}": ${DEMO_USERS.map((u) => `${u.email} (${u.role}${u.tenants.length ? `, ${u.tenants.join(",")}` : ""})`).join(", ")}`,
          );
        }
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

// A secret kept under .data/ so demo sessions survive a restart; production sets NEXTAUTH_SECRET.
function localSecret(): string {
  const file = path.join(embeddedDataDir(), "nextauth-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}
