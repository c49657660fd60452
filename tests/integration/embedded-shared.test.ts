import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startEmbeddedDatabase } from "@/lib/db/embedded";
import { findRunningEmbeddedDatabase } from "@/lib/db/embedded-record";
import { migrate } from "@/lib/db/migrate";
import { createPrismaClient } from "@/lib/db/prisma";
import { runCli } from "../helpers/run-cli";

describe("the embedded database on disk", () => {
  it("is shared: a CLI run joins the process serving it instead of opening it twice", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "idem-embedded-"));
    const embedded = await startEmbeddedDatabase({ dataDir, port: 0 });
    const db = createPrismaClient(embedded.url, 2);
    try {
      expect(findRunningEmbeddedDatabase(dataDir)).toBe(embedded.url);
      await migrate(embedded.url);
      const created = await runCli(["token", "create", "--role", "viewer", "--name", "shared", "--json"], {
        DATABASE_URL: "",
        IDEM_DATA_DIR: dataDir,
      });
      expect(created.code, created.stderr).toBe(0);
      const { id } = JSON.parse(created.stdout) as { id: string };
      expect((await db.apiToken.findUniqueOrThrow({ where: { id } })).name).toBe("shared");
    } finally {
      await db.$disconnect();
      await embedded.stop();
    }
    expect(findRunningEmbeddedDatabase(dataDir)).toBeNull();
  }, 60_000);
});
