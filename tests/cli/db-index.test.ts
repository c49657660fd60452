import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli";
import { createTestDatabase } from "../helpers/test-database";

// `idem db index` as a user runs it: builds the searchable fields' indexes, a second run changes
// nothing, a dropped label drops its index, and a config naming a redacted path stops with one
// line naming it (exit 2), before touching the database. Also on the embedded database (PGlite).
function configFile(config: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), "idem-db-index-"));
  const file = path.join(dir, "idem.config.json");
  writeFileSync(file, JSON.stringify(config));
  return file;
}
const TWO = {
  tools: {
    charge_card: { search: { receipt: "$.id" } },
    create_shipment: { search: { tracking: "$.tracking_number" } },
  },
};

describe("idem db index", () => {
  it("creates, keeps, drops; refuses a redacted path naming it", { timeout: 120_000 }, async () => {
    const fresh = await createTestDatabase();
    try {
      const env = (config: unknown) => ({ DATABASE_URL: fresh.url, IDEM_CONFIG: configFile(config) });
      const first = await runCli(["db", "index", "--json"], env(TWO));
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toEqual({
        created: ["idem_search_charge_card_receipt", "idem_search_create_shipment_tracking"],
        rebuilt: [],
        kept: [],
        dropped: [],
        concurrently: true,
      });
      const second = await runCli(["db", "index"], env(TWO));
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/search indexes are up to date \(2 configured\)/);
      const third = await runCli(["db", "index"], env({ tools: { charge_card: { search: { receipt: "$.id" } } } }));
      expect(third.stdout).toMatch(/dropped idem_search_create_shipment_tracking \(no longer configured\)/);

      const refused = await runCli(
        ["db", "index"],
        env({ tools: { charge_card: { search: { last4: "$.card.last4" } } } }),
      );
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim()).toMatch(
        /tools\.charge_card\.search\.last4: \$\.card\.last4 is redacted \(redact rule \$\.\.card\): a masked value cannot be searchable/,
      );
      expect(refused.stderr).not.toMatch(/^\s+at /m);
      // Refused before any change: the index of the last good config is still there.
      const after = await runCli(
        ["db", "index", "--json"],
        env({ tools: { charge_card: { search: { receipt: "$.id" } } } }),
      );
      expect(JSON.parse(after.stdout)).toMatchObject({ kept: ["idem_search_charge_card_receipt"], dropped: [] });
    } finally {
      await fresh.drop();
    }
  });

  it("builds them on the embedded database too (no CONCURRENTLY there)", { timeout: 120_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "idem-db-index-embedded-"));
    try {
      const env = { DATABASE_URL: "", IDEM_DATA_DIR: dataDir, IDEM_CONFIG: configFile(TWO) };
      const migrated = await runCli(["migrate", "--json"], env);
      expect(migrated.code, migrated.stderr).toBe(0);
      const first = await runCli(["db", "index", "--json"], env);
      expect(first.code, first.stderr).toBe(0);
      expect(JSON.parse(first.stdout)).toMatchObject({ created: TWO_NAMES, concurrently: false });
      const second = await runCli(["db", "index", "--json"], env);
      expect(JSON.parse(second.stdout)).toMatchObject({ created: [], kept: TWO_NAMES });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const TWO_NAMES = ["idem_search_charge_card_receipt", "idem_search_create_shipment_tracking"];
