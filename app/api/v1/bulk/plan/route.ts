import { apiRoute } from "@/lib/api/api-route";
import { readJsonBody } from "@/lib/api/json-body";
import { unknownTenantError } from "@/lib/api/unknown-tenant";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { checkTenantFilter } from "@/lib/records/tenant-filter";
import { bulkPlanInputSchema, planBulkResolution } from "@/lib/resolve/bulk-plan";

/**
 * POST /api/v1/bulk/plan {keys: [...]} | {filter: {tenant?, tool?}} → the dry-run plan: per row
 * the processor's outcome and the proposed action (complete, release, leave). Changes nothing;
 * operators only, since it asks a processor about up to 500 claims at once.
 */
export const POST = apiRoute("records:resolve", async ({ request, actor }) => {
  const body = await readJsonBody(request, bulkPlanInputSchema);
  if (!body.ok) return body.response;
  if ("filter" in body.value) {
    const tenant = await checkTenantFilter(getDb(), actor, body.value.filter.tenant ?? null);
    if (!tenant.ok) return unknownTenantError(tenant);
  }
  return Response.json(await planBulkResolution(getDb(), getConfig(), actor, body.value));
});
