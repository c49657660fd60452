import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { createPrismaClient, type Db } from "@/lib/db/prisma";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import type { DemoUpstream } from "@/tools/demo/upstream/upstream-types";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database";

/**
 * The set-up every crash file shares (docs/crash-tests.md): a database of its own, and for the
 * paths that ask the processor, the demo processor with a config file naming it. Each registers
 * its own beforeAll/afterAll; what it returns is read through getters, after beforeAll ran.
 */

export type CrashDatabase = {
  /** A client on the file's own database, so no other file's traffic shows in the diff. */
  readonly db: Db;
  /** That database's URL, for the child's DATABASE_URL. */
  readonly url: string;
};

/** Call inside the describe, before any beforeAll that uses the database: hooks run in order. */
export function useCrashDatabase(): CrashDatabase {
  let database: TestDatabase | undefined;
  let db: Db | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    db = createPrismaClient(database.url);
  }, 60_000);
  afterAll(async () => {
    await db?.$disconnect();
    await database?.drop();
  });
  return {
    get db() {
      if (!db) throw new Error("useCrashDatabase: read db inside a hook or test, after its beforeAll");
      return db;
    },
    get url() {
      if (!database) throw new Error("useCrashDatabase: read url inside a hook or test, after its beforeAll");
      return database.url;
    },
  };
}

export type CrashProcessor = {
  /** The running demo processor (its url, its stats). */
  readonly processor: DemoUpstream;
  /** A config file whose charge_card (and any extra tool) asks it, for the child's IDEM_CONFIG. */
  readonly configFile: string;
  /** The same config, parsed, for the next run in the test's own process. */
  config(): IdemConfig;
  /** Charges once at the processor under `reference`: a claim the processor took. */
  charge(reference: string, amountCents: number): Promise<void>;
};

/** The demo processor for one file, started after the database's beforeAll and stopped before its drop. */
export function useCrashProcessor(name: string, extraTools: Record<string, unknown> = {}): CrashProcessor {
  let processor: DemoUpstream | undefined;
  let configText = "";
  let configFile = "";
  beforeAll(async () => {
    processor = await startDemoProcessor();
    configText = JSON.stringify({
      tools: { charge_card: { processor: { type: "http", baseUrl: processor.url } }, ...extraTools },
    });
    configFile = path.join(mkdtempSync(path.join(tmpdir(), `idem-crash-${name}-`)), "idem.config.json");
    writeFileSync(configFile, configText);
  }, 60_000);
  afterAll(async () => {
    await processor?.stop();
  });
  const running = () => {
    if (!processor) throw new Error("useCrashProcessor: read it inside a hook or test, after its beforeAll");
    return processor;
  };
  return {
    get processor() {
      return running();
    },
    get configFile() {
      running();
      return configFile;
    },
    config: () => parseConfig(configText),
    async charge(reference, amountCents) {
      const charged = await fetch(`${running().url}/charges`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card: "c_4242", amount_cents: amountCents, reference }),
      });
      expect(charged.status).toBe(200);
    },
  };
}

/**
 * Sets a route child's token as used a moment ago: the handler's fire-and-forget last_used_at
 * write then stays out of the counted steps.
 */
export async function markTokenUsed(db: Db, id: string): Promise<void> {
  await db.apiToken.update({ where: { id }, data: { lastUsedAt: new Date() } });
}
