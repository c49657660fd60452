import "server-only";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";
import { loadKnownTools } from "@/lib/tool-listings/known-tools";
import { atOneScanSnapshot } from "@/lib/scan/scan-snapshot";
import { duplicateFigures, type ToolDuplicates } from "./duplicate-figures";
import { duplicateWindows } from "./duplicate-windows";
import { DUPLICATES_WINDOW_MS, type DuplicatesQuery, type DuplicatesWindow } from "./duplicates-params";
import { duplicateFix } from "./duplicate-text";
import { listDuplicates, type DuplicateEntry } from "./list-duplicates";
import { listMismatches, type MismatchEntry } from "./list-mismatches";

/** The newest arguments refusals the report lists beside the duplicates (the per-tool counts cover the whole window). */
export const MISMATCHES_SHOWN = 20;

export type DuplicateEntryView = DuplicateEntry & { fix: string };
/** A tool's figures, and whether the configuration keys it by a business key (never paired: two keys are two operations). */
export type ToolDuplicatesView = ToolDuplicates & { businessKey: boolean };

/** What GET /api/v1/duplicates answers and the duplicates page shows. */
export type DuplicatesReport = {
  window: DuplicatesWindow;
  since: string;
  until: string;
  /** Claims created before this are counted; younger ones are not scanned yet. Null: the scan never ran. */
  scannedThrough: string | null;
  /**
   * Per tool: the duplicates whose second claim falls in the window. `duplicates: null` is "not
   * recorded" (no scanned claim of the tool carries an arguments hash), never 0. Tools the console
   * knows of (the configuration, tool listings) with no hashed claim are listed that way too.
   */
  byTool: ToolDuplicatesView[];
  entries: DuplicateEntryView[];
  nextCursor: string | null;
  /** The window's newest calls refused for other arguments under a reused key (at most MISMATCHES_SHOWN). */
  mismatches: MismatchEntry[];
};

/**
 * The duplicates that got through in the window ending `now`, within the actor's tenants. The
 * caller has checked `query.tenant` (lib/records/tenant-filter.ts): a tenant outside the scope
 * must never reach here, or it would be answered with zeros.
 */
export async function readDuplicates(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  query: DuplicatesQuery,
  now: Date,
): Promise<DuplicatesReport> {
  const scope = actorTenantScope(actor);
  const since = new Date(now.getTime() - DUPLICATES_WINDOW_MS[query.window]);
  const range = { since, until: now, tool: query.tool ?? undefined, tenant: query.tenant ?? undefined };
  const [figures, list, known, mismatches] = await Promise.all([
    // In one snapshot with the watermark the page shows as what the figures count through.
    atOneScanSnapshot(db, (scan) => duplicateFigures(scan, scope, range)),
    listDuplicates(db, scope, { ...range, limit: query.limit, cursor: query.cursor ?? undefined }),
    loadKnownTools(db, config),
    listMismatches(db, scope, { ...range, limit: MISMATCHES_SHOWN }),
  ]);
  const byTool = new Map(figures.byTool.map((t) => [t.tool, t]));
  for (const tool of known.keys())
    if (!byTool.has(tool) && (query.tool === null || query.tool === tool))
      byTool.set(tool, { tool, duplicates: null, hashedClaims: 0, argumentsMismatches: null });
  const { businessKeyTools } = duplicateWindows(config);
  return {
    window: query.window,
    since: since.toISOString(),
    until: now.toISOString(),
    scannedThrough: figures.scannedThrough,
    byTool: [...byTool.values()]
      .sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0))
      .map((t) => ({ ...t, businessKey: businessKeyTools.includes(t.tool) })),
    entries: list.entries.map((entry) => ({ ...entry, fix: duplicateFix(entry) })),
    nextCursor: list.nextCursor,
    mismatches,
  };
}
