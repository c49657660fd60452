import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { buildToolsAudit, parseAuditWindow } from "@/lib/annotations/build-audit";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";

/**
 * GET /api/v1/tools/audit?window=24h|48h|7d → {window, generatedAt, since, servers, tools:
 * [{server, name, declared, effective, evidence, verdict, explanation, fix, …}]}. Reads stored
 * snapshots only; POST /api/v1/tools/refresh re-lists the servers.
 */
export const GET = apiRoute("tools:read", async ({ request, actor }) => {
  const window = parseAuditWindow(new URL(request.url).searchParams.get("window"));
  if (!window) return jsonError(400, "bad_window", "window must be one of 24h, 48h, 7d.");
  return Response.json(await buildToolsAudit(getDb(), getConfig(), actor, window));
});
