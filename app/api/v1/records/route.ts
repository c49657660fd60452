import { apiRoute } from "@/lib/api/api-route";
import { paramProblemsError } from "@/lib/api/strict-params";
import { unknownTenantError } from "@/lib/api/unknown-tenant";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { parseRecordsQuery } from "@/lib/records/list-filters";
import { loadRecordsListing } from "@/lib/records/records-listing";
import { checkTenantFilter } from "@/lib/records/tenant-filter";

/** GET /api/v1/records?tenant&tool&status&stuck&from&to&cursor&dir&limit — one page, newest first, with facet counts. */
export const GET = apiRoute("records:read", async ({ request, actor }) => {
  const parsed = parseRecordsQuery(new URL(request.url).searchParams, { unknownParams: "reject" });
  if (!parsed.ok) return paramProblemsError(parsed.problems);
  const tenant = await checkTenantFilter(getDb(), actor, parsed.value.tenant);
  if (!tenant.ok) return unknownTenantError(tenant);
  return Response.json(await loadRecordsListing(getDb(), actor, parsed.value, getConfig(), new Date()));
});
