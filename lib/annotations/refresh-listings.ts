import "server-only";
import type { DomainFailure } from "@/lib/errors/error-codes";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { writeAudit } from "@/lib/audit/write-audit";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { ListedTool } from "@/lib/tool-listings/annotation-types";
import { listServerTools, type ServerListing } from "./list-server-tools";
import { loadAuditedServers } from "./server-store";
import { insertSnapshot } from "./snapshot-store";

export type RefreshOutcome = { ok: true; listings: ServerListing[]; auditId: string } | DomainFailure<"forbidden">;

/**
 * Re-lists every server at once (each bounded by its own deadline, so one dead server delays
 * the rest by at most its timeout) and stores each listing — or its failure — as a snapshot,
 * all with one audit row in one transaction.
 *
 * Permission: tools:refresh (operators). A refresh contacts only servers the configuration file or
 * an admin named and changes nothing but the history of what they said, but it makes outbound
 * calls on the caller's word, so a viewer may not start one. Servers an admin added are connected
 * to through the outbound policy (lib/security/outbound-policy.ts). Audited.
 */
export async function refreshListings(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  options: { timeoutMs?: number } = {},
): Promise<RefreshOutcome> {
  // Checked here too, not only by the route: every caller of a refresh goes through this.
  if (!can(actor.role, "tools:refresh"))
    return {
      ok: false,
      code: "forbidden",
      message: `Your role (${actor.role}) may not refresh the listings: it connects to every server; ask an operator.`,
    };
  const servers = await loadAuditedServers(db, config);
  const policy = { allow: config.outbound.allow };
  const listings = await Promise.all(servers.map((server) => listServerTools(server, options.timeoutMs, policy)));
  const auditId = await db.$transaction(async (tx) => {
    for (const listing of listings) {
      await insertSnapshot(
        tx,
        listing.ok
          ? { server: listing.server, source: "live", takenBy: actor.name, tools: listing.tools }
          : { server: listing.server, source: "live", takenBy: actor.name, error: listing.reason },
      );
    }
    const audit = await writeAudit(tx, actor, {
      action: "tools.refresh",
      after: {
        servers: listings.map((l) =>
          l.ok
            ? { server: l.server, ok: true, tools: l.tools.length, pages: l.pages }
            : { server: l.server, ok: false, reason: l.reason },
        ),
      },
    });
    return String(audit.id);
  });
  return { ok: true, listings, auditId };
}

/** Stores an admin's uploaded tools/list result as a snapshot of `server`, with its audit row. */
export async function recordUploadedListing(
  db: Db,
  actor: Actor,
  server: string,
  tools: ListedTool[],
): Promise<{ snapshotId: string; auditId: string }> {
  return db.$transaction(async (tx) => {
    const snapshotId = await insertSnapshot(tx, { server, source: "upload", takenBy: actor.name, tools });
    const audit = await writeAudit(tx, actor, {
      action: "tools.upload",
      after: { server, snapshotId, tools: tools.map((t) => t.name) },
    });
    return { snapshotId, auditId: String(audit.id) };
  });
}
