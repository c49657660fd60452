import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { refreshListings } from "@/lib/annotations/refresh-listings";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";

/**
 * POST /api/v1/tools/refresh → {listings: [{server, ok, tools|reason}], auditId}. Lists every
 * configured and added server now and stores each answer (or failure) as a snapshot; one audit
 * row. Operators and admins (tools:refresh): it makes outbound calls.
 */
export const POST = apiRoute("tools:refresh", async ({ actor }) => {
  const outcome = await refreshListings(getDb(), getConfig(), actor);
  if (!outcome.ok) return jsonError(403, outcome.code, outcome.message);
  const { listings, auditId } = outcome;
  return Response.json({
    auditId,
    listings: listings.map((l) => (l.ok ? { server: l.server, ok: true, pages: l.pages, tools: l.tools.length } : l)),
  });
});
