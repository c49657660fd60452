import "server-only";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { countRepeatsInto } from "@/lib/repeats/count-repeats";
import { duplicateWindows } from "./duplicate-windows";

/** The duplicate scan's transaction-level advisory lock: one scan at a time across console instances. */
export const DUPLICATE_SCAN_LOCK_ID = 7_2707_608;
/** Claims younger than this may still be uncommitted (their created_at is taken before the commit). */
export const DUPLICATE_SCAN_SETTLE_MS = 5 * 60_000;
/** One transaction reads this much claim time (about 18,000 claims at 60/s): short, so it holds its lock briefly. */
const CHUNK_MS = 5 * 60_000;
/** A chunk is a few index probes per claim; generous for a cold cache on a busy disk (no request waits on it). */
const CHUNK_TIMEOUT_MS = 120_000;
/** A first scan starts this far back: the 48 h table and a day of slack, as the roll-up does. */
const FIRST_SCAN_MS = 72 * 3_600_000;

export type DuplicateScanResult = { from: string | null; through: string | null; chunks: number; found: number };

/**
 * Reads the claims created since the last scan (in 5-minute chunks, each one transaction) and, for
 * each that carries arguments_sha256, looks up the nearest earlier claim of the same operation
 * (tenant, subject, tool, arguments hash) within the tool's window: found, the pair is a duplicate
 * that got through. The same chunk counts the events of its time range: repeats with their delays
 * and arguments mismatches (lib/repeats/count-repeats.ts). Writes the pairs, the per-hour counts and
 * the new watermark together.
 * docs/architecture.md#duplicates-that-got-through says why forward-only is right and what a backfill needs.
 */
export async function scanDuplicates(
  db: Db,
  config: Pick<IdemConfig, "tools">,
  now: Date,
  options: {
    maxChunks?: number;
    skipWhenBusy?: boolean;
    /** Start no chunk after this long (ms): a round stays short whatever the chunk sizes. */
    budgetMs?: number;
  } = {},
): Promise<DuplicateScanResult> {
  const target = new Date(now.getTime() - DUPLICATE_SCAN_SETTLE_MS);
  const { windows, defaultWindowSeconds, businessKeyTools } = duplicateWindows(config);
  let chunks = 0;
  let found = 0;
  let first: string | null = null;
  let through: string | null = null;
  const maxChunks = options.maxChunks ?? 48;
  const started = Date.now();
  while (chunks < maxChunks && (options.budgetMs === undefined || Date.now() - started < options.budgetMs)) {
    const step = await db.$transaction(
      async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${CHUNK_TIMEOUT_MS - 5_000}`);
        // A chunk's probes cost more than jit_above_cost in the plan, and JIT compiled each chunk's
        // statements for ~0.5 s where they run in ~0.4 s (docs/bench.md, "The duplicate scan at 10 M rows").
        await tx.$executeRawUnsafe("SET LOCAL jit = off");
        if (options.skipWhenBusy) {
          const [row] = await tx.$queryRaw<{ taken: boolean }[]>`
          SELECT pg_try_advisory_xact_lock(${DUPLICATE_SCAN_LOCK_ID}::int8) AS taken`;
          if (!row?.taken) return null;
        } else {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(${DUPLICATE_SCAN_LOCK_ID}::int8)`;
        }
        const [state] = await tx.$queryRaw<{ scannedThrough: Date | null }[]>`
        SELECT (SELECT scanned_through FROM duplicate_scan_state WHERE id = 1) AS "scannedThrough"`;
        const from = state?.scannedThrough ?? (await firstScanStart(tx, target));
        if (from.getTime() >= target.getTime()) return null;
        const to = new Date(Math.min(from.getTime() + CHUNK_MS, target.getTime()));
        const [counted] = await tx.$queryRaw<{ found: number }[]>`
        WITH scanned AS (
          SELECT key, tenant, subject, tool, arguments_sha256, created_at,
                 COALESCE((${JSON.stringify(windows)}::jsonb ->> tool)::int, ${defaultWindowSeconds}::int) AS window_s
          FROM idempotency
          WHERE created_at >= ${from} AND created_at < ${to}
            AND arguments_sha256 IS NOT NULL AND tool IS NOT NULL
        ),
        pairs AS (
          SELECT s.*, p.key AS first_key, p.created_at AS first_at
          FROM scanned s
          CROSS JOIN LATERAL (
            -- Two branches so each is one index range: subject = $x, or subject IS NULL.
            (SELECT a.key, a.created_at FROM idempotency a
              WHERE s.subject IS NOT NULL AND a.arguments_sha256 IS NOT NULL
                AND a.tenant = s.tenant AND a.subject = s.subject AND a.tool = s.tool
                AND a.arguments_sha256 = s.arguments_sha256
                AND a.created_at > s.created_at - make_interval(secs => s.window_s)
                AND (a.created_at, a.key) < (s.created_at, s.key)
              ORDER BY a.created_at DESC LIMIT 1)
            UNION ALL
            (SELECT a.key, a.created_at FROM idempotency a
              WHERE s.subject IS NULL AND a.arguments_sha256 IS NOT NULL
                AND a.tenant = s.tenant AND a.subject IS NULL AND a.tool = s.tool
                AND a.arguments_sha256 = s.arguments_sha256
                AND a.created_at > s.created_at - make_interval(secs => s.window_s)
                AND (a.created_at, a.key) < (s.created_at, s.key)
              ORDER BY a.created_at DESC LIMIT 1)
            LIMIT 1
          ) p
          WHERE s.tool <> ALL(${businessKeyTools}::text[])
        ),
        inserted AS (
          INSERT INTO duplicate_through
            (second_key, first_key, tenant, subject, tool, arguments_sha256, first_at, second_at, window_s)
          SELECT key, first_key, tenant, subject, tool, arguments_sha256, first_at, created_at, window_s FROM pairs
          ON CONFLICT (second_key) DO NOTHING
          RETURNING tenant, tool, second_at
        ),
        hashed AS (
          SELECT date_trunc('hour', created_at, 'UTC') AS hour, tenant, tool, count(*) AS n FROM scanned GROUP BY 1, 2, 3
        ),
        duplicates AS (
          SELECT date_trunc('hour', second_at, 'UTC') AS hour, tenant, tool, count(*) AS n FROM inserted GROUP BY 1, 2, 3
        ),
        hourly AS (
          INSERT INTO duplicate_scan_hourly (hour, tenant, tool, hashed, duplicates)
          SELECT h.hour, h.tenant, h.tool, h.n, COALESCE(d.n, 0)
          FROM hashed h LEFT JOIN duplicates d USING (hour, tenant, tool)
          ON CONFLICT (hour, tenant, tool) DO UPDATE
            SET hashed = duplicate_scan_hourly.hashed + EXCLUDED.hashed,
                duplicates = duplicate_scan_hourly.duplicates + EXCLUDED.duplicates
          RETURNING 1
        )
        SELECT (SELECT count(*)::int FROM inserted) AS found, (SELECT count(*) FROM hourly) AS hours`;
        await countRepeatsInto(tx, { from, to }, { windows, defaultWindowSeconds, businessKeyTools });
        await tx.$executeRaw`
        INSERT INTO duplicate_scan_state (id, scanned_through, scanned_at) VALUES (1, ${to}, now())
        ON CONFLICT (id) DO UPDATE SET scanned_through = EXCLUDED.scanned_through, scanned_at = EXCLUDED.scanned_at`;
        return { from, to, found: counted?.found ?? 0 };
      },
      { timeout: CHUNK_TIMEOUT_MS, maxWait: 10_000 },
    );
    if (!step) break;
    chunks += 1;
    found += step.found;
    first ??= step.from.toISOString();
    through = step.to.toISOString();
  }
  return { from: first, through, chunks, found };
}

/**
 * Where a first scan starts: FIRST_SCAN_MS back, or at the oldest claim or event if that is later
 * (two index probes), so an empty stretch of the 72 h is not read chunk by chunk.
 */
async function firstScanStart(tx: Pick<Db, "$queryRaw">, target: Date): Promise<Date> {
  const earliest = new Date(target.getTime() - FIRST_SCAN_MS);
  const [row] = await tx.$queryRaw<{ oldest: Date | null }[]>`
    SELECT LEAST((SELECT min(created_at) FROM idempotency WHERE created_at >= ${earliest}),
                 (SELECT min(at) FROM idempotency_event WHERE at >= ${earliest})) AS oldest`;
  return row?.oldest && row.oldest > earliest ? row.oldest : earliest;
}
