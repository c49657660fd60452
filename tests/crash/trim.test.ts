import { describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { trim } from "@/lib/retention/trim";
import { cliChild, crashAtEveryStep } from "./crash-run";
import { useCrashDatabase } from "./crash-setup";
import { IDEMPOTENCY, IDEMPOTENCY_EVENT, type ClaimsOf } from "./invariant";

// `idem trim --batch 2 --include-unresolved` killed after each commit: three old rows (two
// batches), an old claim (its own batch), an old writer event, a young row that stays.
const OLDER_THAN_MS = 48 * 3_600_000;
const system: Actor = { kind: "system", id: "crash", name: "crash-test", displayName: "t", role: "admin", tenants: [] };

/** A records batch names its rows by their refs (trimmed_ref_chunk), a claims batch by key, an events batch by count. */
const trimClaims: ClaimsOf = async (row, { db, before }) => {
  if (row.action === "retention.trim_events")
    return [{ table: "idempotency_event", count: (row.evidence as { deleted: number }).deleted }];
  if (row.action === "retention.trim_unresolved") {
    const claims = (row.before as { claims: { key: string }[] }).claims;
    return [{ ids: claims.map((c) => `idempotency:${c.key}`) }];
  }
  if (row.action !== "retention.trim") return [];
  const chunks = await db.$queryRaw<{ refs: string }[]>`
    SELECT encode(refs, 'hex') AS refs FROM trimmed_ref_chunk WHERE audit_id = ${row.id}`;
  const refs = chunks.flatMap((c) => c.refs.match(/.{12}/g) ?? []);
  const keys = [...before.rows.keys()].filter((id) => id.startsWith("idempotency:"));
  return [{ ids: refs.flatMap((ref) => keys.filter((id) => id.startsWith(`idempotency:${ref}`))) }];
};

describe("crash: idem trim killed at every commit", () => {
  const database = useCrashDatabase();
  let round = 0;

  it("leaves one audit row per deleted batch, never an unaudited delete; the next trim finishes the rest", async () => {
    const { db } = database;
    const report = await crashAtEveryStep({
      db,
      child: cliChild(["trim", "--batch", "2", "--include-unresolved"], { DATABASE_URL: database.url }),
      kinds: ["after-commit"],
      watched: [IDEMPOTENCY, IDEMPOTENCY_EVENT],
      claimsOf: trimClaims,
      async prepare() {
        round += 1;
        await db.$executeRaw`
          INSERT INTO idempotency (key, tenant, tool, status, created_at, updated_at)
          SELECT md5(${`trim-${round}-`} || i), 'acme', 'charge_card', CASE WHEN i = 4 THEN 'in_progress' ELSE 'completed' END,
                 now() - interval '10 days' + i * interval '1 minute', NULL
            FROM generate_series(1, 4) AS i`;
        await db.$executeRaw`
          INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (md5(${`trim-${round}-young`}), 'acme', 'charge_card', 'completed', now())`;
        await db.$executeRaw`
          INSERT INTO idempotency_event (key, tenant, tool, kind, at) VALUES (md5(${`trim-${round}-1`}), 'acme', 'charge_card', 'replay_served', now() - interval '10 days')`;
      },
      async nextRun() {
        await trim(db, {
          olderThanMs: OLDER_THAN_MS,
          batchSize: 2,
          dryRun: false,
          includeUnresolved: true,
          actor: system,
        });
      },
      async expectDone() {
        const [left] = await db.$queryRaw<{ old: bigint; young: bigint; events: bigint }[]>`
          SELECT count(*) FILTER (WHERE created_at < now() - interval '1 day') AS old,
                 count(*) FILTER (WHERE created_at >= now() - interval '1 day') AS young,
                 (SELECT count(*) FROM idempotency_event) AS events FROM idempotency`;
        expect(left).toEqual({ old: 0n, young: BigInt(round), events: 0n });
      },
    });
    // job start, prune, two record batches, the claims batch, the events batch, job end.
    expect(report.points).toHaveLength(7);
  }, 300_000);
});
