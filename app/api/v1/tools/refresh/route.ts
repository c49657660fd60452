import { apiRoute } from "@/lib/api/api-route";
import { refreshListings } from "@/lib/annotations/refresh-listings";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";

/**
 * POST /api/v1/tools/refresh → {listings: [{server, ok, tools|reason}], auditId}. Lists every
 * configured and added server now and stores each answer (or failure) as a snapshot; one audit
 * row. Operators and admins (tools:refresh): it makes outbound calls.
 */
export const POST = apiRoute("tools:refresh", async ({ actor }) => {
  const { listings, auditId } = await refreshListings(getDb(), getConfig(), actor);
  return Response.json({
    auditId,
    listings: listings.map((l) => (l.ok ? { server: l.server, ok: true, pages: l.pages, tools: l.tools.length } : l)),
  });
});
