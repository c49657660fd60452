import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { toolsRefreshContract } from "@/lib/api/contracts/tools";
import { refreshListings } from "@/lib/annotations/refresh-listings";
import { getConfig } from "@/lib/config/load";

/** Operators and admins (tools:refresh): it makes outbound calls. */
export const POST = contractRoute(toolsRefreshContract, async ({ db, actor, reply }) => {
  const outcome = await refreshListings(db, getConfig(), actor);
  if (!outcome.ok) return outcome;
  return reply({
    auditId: outcome.auditId,
    listings: outcome.listings.map((l) =>
      l.ok ? { server: l.server, ok: true as const, pages: l.pages, tools: l.tools.length } : l,
    ),
  });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(toolsRefreshContract.method);
