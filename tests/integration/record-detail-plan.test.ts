import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { Prisma } from "@/generated/prisma/client";
import { recordDetailStatement } from "@/lib/records/record-detail-read";
import { genericPlanOf } from "../helpers/prepared-plans";
import { systemAdmin } from "../helpers/system-admin";

// The record detail runs as a prepared statement, so after five executions PostgreSQL may keep a
// generic plan that knows no key. Its duplicates part once read `second_key = k OR first_key = k`,
// and the generic plan for that walked every pair in `second_at` order and filtered (0.34 ms at
// 1,894 pairs, growing with the table). Each part must seek the key in an index in both plans.

const PAIRS = 2000;
const CLAIMS = 200_000;
const KEY = "a".repeat(64);

/** The duplicates part's scans on duplicate_through, each with the condition it seeks or filters by. */
function duplicateScans(plan: string): string[] {
  const lines = plan.split("\n");
  return lines.flatMap((line, at) =>
    /on duplicate_through\b/.test(line) ? [[line, ...lines.slice(at + 1, at + 4)].join("\n")] : [],
  );
}

describe("the record detail's statement plan", () => {
  it("finds a key's duplicate pairs through the key indexes, in a custom and in a generic plan", async () => {
    const client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
    try {
      // Session-local copies: pg_temp comes first in the search path, so the statement reads them, and no
      // other test file sees their rows. The pairs are left unanalysed, as right after the scan's first writes.
      await client.query("CREATE TEMP TABLE duplicate_through (LIKE public.duplicate_through INCLUDING ALL)");
      // The pairs' other claims are looked up in a claims table of a real one's size: against a small one
      // the planner sorts the few pairs itself and the walk in time order never shows.
      await client.query(
        "CREATE TEMP TABLE idempotency (LIKE public.idempotency INCLUDING DEFAULTS, PRIMARY KEY (key))",
      );
      await client.query(
        `INSERT INTO idempotency (key, tenant, status) SELECT md5('k' || g) || md5('l' || g), 'acme', 'completed'
         FROM generate_series(1, $1::int) g`,
        [CLAIMS],
      );
      await client.query("ANALYZE idempotency");
      await client.query(
        `INSERT INTO duplicate_through (second_key, first_key, tenant, tool, arguments_sha256, first_at, second_at, window_s)
         SELECT md5('s' || g) || md5('t' || g), md5('f' || g) || md5('g' || g), 'acme', 'charge_card', md5('a' || g),
                now() - make_interval(secs => g + 5), now() - make_interval(secs => g), 60
         FROM generate_series(1, $1::int) g`,
        [PAIRS],
      );
      const sql = recordDetailStatement(
        systemAdmin("plan-test"),
        KEY,
        { maxEvents: 201, maxAudit: 100 },
        Prisma.sql`NULL::json`,
      );
      const literal = (v: unknown) => client.escapeLiteral(String(v));
      const planOf = async (explain: string) =>
        (await client.query<{ "QUERY PLAN": string }>(explain)).rows.map((r) => r["QUERY PLAN"]).join("\n");

      const custom = await planOf(
        `EXPLAIN ${sql.text.replace(/\$(\d+)/g, (_, n: string) => literal(sql.values[Number(n) - 1]))}`,
      );
      const generic = await genericPlanOf(client, "record_detail", sql);

      for (const [name, plan] of [
        ["custom", custom],
        ["generic", generic],
      ] as const) {
        const scans = duplicateScans(plan);
        expect(scans.length, `${name}:\n${plan}`).toBeGreaterThan(0);
        for (const scan of scans) {
          // A seek on one key column; never the pairs walked in time order, never a filter on the key.
          expect(scan, `${name}:\n${plan}`).toMatch(/(Index|Recheck) Cond: \((second|first)_key = /);
          expect(scan, `${name}:\n${plan}`).not.toMatch(/second_at\w*_idx|Seq Scan|Filter: \(\(second_key = /);
        }
        // The pairs' other claims are looked up by key too.
        expect(plan, name).toMatch(/Index Scan using idempotency_pkey on idempotency o\b/);
      }
    } finally {
      await client.end();
    }
  });
});
