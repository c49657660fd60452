import { createHash } from "node:crypto";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { Prisma } from "@/generated/prisma/client";
import { tokenRowQuery } from "@/lib/auth/tokens";
import { keysAndRefsBranches, lookupRowsStatement } from "@/lib/records/lookup";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { EXECUTIONS_TO_WEIGH_GENERIC, genericPlanOf, genericPlansOf, runPrepared } from "../helpers/prepared-plans";
import { systemAdmin } from "../helpers/system-admin";

// The ref lookup runs as a prepared statement. With the ref's range bounds as parameters, each custom plan
// (which knows them) looked far cheaper than the generic plan (which estimates 0.5 % of the table for any
// range), so PostgreSQL planned every request again: 0.14 ms in psql, ~0.2 ms of a 0.5 ms round trip. Through
// a subquery it does not flatten, both plans estimate alike and the generic one is kept. It must still seek
// the primary key, and find what the custom plan finds.

const CLAIMS = 200_000;

const md5 = (text: string) => createHash("md5").update(text).digest("hex");
/** The g-th claim's key, as the table below writes it: random in key order, as hashes are. */
const keyOf = (g: number) => md5(`k${g}`) + md5(`l${g}`);

describe("the ref lookup's statement plan", () => {
  it("is planned once per connection and seeks the primary key, for every actor and paste shape", async () => {
    const client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
    try {
      // A session-local claims table of a real one's size (pg_temp comes first in the search path), its keys
      // hashes: in key order its rows lie anywhere in the heap, which is what makes the generic plan's guess
      // at a range's size costly (with keys in heap order the old statement kept its generic plan here too).
      await client.query(
        "CREATE TEMP TABLE idempotency (LIKE public.idempotency INCLUDING DEFAULTS, PRIMARY KEY (key))",
      );
      await client.query(
        `INSERT INTO idempotency (key, tenant, status)
         SELECT md5('k' || g) || md5('l' || g), CASE WHEN g % 2 = 0 THEN 'acme' ELSE 'globex' END, 'completed'
         FROM generate_series(1, $1::int) g`,
        [CLAIMS],
      );
      await client.query("ANALYZE idempotency");

      const ref = (g: number) => keyOf(g).slice(0, 12);
      // Each shape's claims as [key, g]; acme holds the even ones.
      const shapes: { name: string; keys: string[]; refs: string[]; found: [string, number][] }[] = [
        { name: "one ref", keys: [], refs: [ref(1_000)], found: [[keyOf(1_000), 1_000]] },
        {
          name: "two refs",
          keys: [],
          refs: [ref(2_000), ref(3_001)],
          found: [
            [keyOf(2_000), 2_000],
            [keyOf(3_001), 3_001],
          ],
        },
        { name: "one key", keys: [keyOf(4_000)], refs: [], found: [[keyOf(4_000), 4_000]] },
        {
          name: "a key and a ref",
          keys: [keyOf(5_001)],
          refs: [ref(6_000)],
          found: [
            [keyOf(5_001), 5_001],
            [keyOf(6_000), 6_000],
          ],
        },
      ];
      const actors = [
        { name: "every tenant", actor: systemAdmin("plan-test") },
        { name: "acme only", actor: { ...systemAdmin("plan-test"), tenants: ["acme"] } },
      ];
      let statement = 0;
      for (const { name: actorName, actor } of actors)
        for (const shape of shapes) {
          const sql = lookupRowsStatement(
            keysAndRefsBranches(shape.keys, shape.refs, actorTenantScope(actor).and()),
            Prisma.sql`(SELECT row_to_json(t) FROM (${tokenRowQuery("no-such-token")}) t)`,
          );
          const label = `${actorName}, ${shape.name}`;
          const name = `lookup_plan_${(statement += 1)}`;
          await runPrepared<{ rows: { key: string }[] }>(client, name, sql, (rows, run) =>
            // Every execution, custom or generic, finds the same rows.
            expect(rows[0]!.rows.map((row) => row.key).sort(), `${label}, run ${run}`).toEqual(
              shape.found
                .filter(([, g]) => actorName === "every tenant" || g % 2 === 0)
                .map(([key]) => key)
                .sort(),
            ),
          );
          // Five custom plans, then the generic one for every execution after.
          expect(await genericPlansOf(client, name), label).toBeGreaterThanOrEqual(EXECUTIONS_TO_WEIGH_GENERIC - 5);
          const plan = await genericPlanOf(client, `generic_${statement}`, sql);
          // Each key and ref is a seek in the primary key, never a scan of the table.
          const seeks =
            plan.match(
              /Index (Only )?Scan using idempotency_pkey on idempotency|Bitmap Index Scan on idempotency_pkey/g,
            ) ?? [];
          expect(seeks.length, `${label}:\n${plan}`).toBe(shape.refs.length + (shape.keys.length > 0 ? 1 : 0));
          expect(plan, `${label}:\n${plan}`).not.toMatch(/Seq Scan on idempotency/);
        }
    } finally {
      await client.end();
    }
  });
});
