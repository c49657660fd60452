import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { toolsAuditContract } from "@/lib/api/contracts/tools";
import { buildToolsAudit, parseAuditWindow } from "@/lib/annotations/build-audit";
import { getConfig } from "@/lib/config/load";

/** Reads stored snapshots only; POST /api/v1/tools/refresh re-lists the servers. */
export const GET = contractRoute(toolsAuditContract, async ({ db, readDb, actor, query, reply }) => {
  const window = parseAuditWindow(query.window);
  if (!window) return { ok: false, code: "bad_window", message: "window must be one of 24h, 48h, 7d." };
  return reply(await buildToolsAudit(db, getConfig(), actor, window, new Date(), { evidenceDb: readDb }));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(toolsAuditContract.method);
