import { createHash } from "node:crypto";
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { parseConfig } from "@/lib/config/load";
import { searchSpecs, toolLiteral } from "@/lib/config/search-specs";
import { searchableQuery } from "@/lib/search/find-by-searchable";
import { EXECUTIONS_TO_WEIGH_GENERIC, genericPlanOf, genericPlansOf, runPrepared } from "../helpers/prepared-plans";
import { systemAdmin } from "../helpers/system-admin";

// A lookup's search among the searchable fields runs as a prepared statement, kept with its generic plan.
// That plan knows neither the values nor how few rows hold them; asked for the newest matches directly, it
// walked the tool's rows in time order and filtered each (5.2 s at 1 M rows). Found first in a materialized
// CTE, the matches come from the field's expression index whatever the plan.

const CLAIMS = 200_000;
const CONFIG = parseConfig(JSON.stringify({ tools: { charge_card: { search: { receipt: "$.id" } } } }));

const md5 = (text: string) => createHash("md5").update(text).digest("hex");
/** The g-th claim's key and receipt, as the table below writes them; acme holds the even claims. */
const keyOf = (g: number) => md5(`k${g}`) + md5(`l${g}`);
const receiptOf = (g: number) => `ch_${md5(`r${g}`).slice(0, 16)}`;

describe("the searchable fields' statement plan", () => {
  it("is planned once per connection and reads the field's expression index, never the rows in time order", async () => {
    const client = new pg.Client({ connectionString: inject("databaseUrl") });
    await client.connect();
    try {
      // A session-local claims table of a real one's size with the console's indexes (pg_temp comes first in
      // the search path), and the field's expression index as `idem db index` builds it.
      await client.query("CREATE TEMP TABLE idempotency (LIKE public.idempotency INCLUDING ALL)");
      await client.query(
        `INSERT INTO idempotency (key, tenant, tool, status, response, created_at)
         SELECT md5('k' || g) || md5('l' || g), CASE WHEN g % 2 = 0 THEN 'acme' ELSE 'globex' END, 'charge_card',
                'completed', jsonb_build_object('id', 'ch_' || left(md5('r' || g), 16), 'amount_cents', g),
                now() - make_interval(secs => g)
         FROM generate_series(1, $1::int) g`,
        [CLAIMS],
      );
      const [spec] = searchSpecs(CONFIG);
      await client.query(
        `CREATE INDEX search_plan_receipt ON idempotency (${spec!.expression}) WHERE tool = ${toolLiteral(spec!.tool)}`,
      );
      await client.query("ANALYZE idempotency");

      const shapes = [
        { name: "one receipt", values: [receiptOf(1_000)], found: [1_000] },
        { name: "two receipts", values: [receiptOf(2_000), receiptOf(3_001)], found: [2_000, 3_001] },
        { name: "a receipt nobody holds", values: ["ch_no_such_receipt"], found: [] },
      ];
      const actors = [
        { name: "every tenant", actor: systemAdmin("plan-test"), sees: () => true },
        {
          name: "acme only",
          actor: { ...systemAdmin("plan-test"), tenants: ["acme"] },
          sees: (g: number) => g % 2 === 0,
        },
      ];
      let statement = 0;
      for (const { name: actorName, actor, sees } of actors)
        for (const shape of shapes) {
          const query = searchableQuery(actor, CONFIG, shape.values);
          const sql = query.statement!;
          const label = `${actorName}, ${shape.name}`;
          expect(query.prepareAs, label).toBe("searchable");
          const name = `searchable_plan_${(statement += 1)}`;
          await runPrepared<{ key: string }>(client, name, sql, (rows, run) =>
            // Every execution, custom or generic, finds the same rows.
            expect(rows.map((row) => row.key).sort(), `${label}, run ${run}`).toEqual(
              shape.found.filter(sees).map(keyOf).sort(),
            ),
          );
          // Five custom plans, then the generic one for every execution after.
          expect(await genericPlansOf(client, name), label).toBeGreaterThanOrEqual(EXECUTIONS_TO_WEIGH_GENERIC - 5);
          const plan = await genericPlanOf(client, `generic_${statement}`, sql);
          expect(plan, `${label}:\n${plan}`).toMatch(/(Bitmap Index Scan on|Index Scan using) search_plan_receipt/);
          expect(plan, `${label}:\n${plan}`).not.toMatch(/created_at\w*_idx|Seq Scan on idempotency/);
        }
    } finally {
      await client.end();
    }
  });
});
