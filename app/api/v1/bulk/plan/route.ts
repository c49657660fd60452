import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { bulkPlanContract } from "@/lib/api/contracts/operations";
import { getConfig } from "@/lib/config/load";
import { checkTenantFilter } from "@/lib/records/tenant-filter";
import { planBulkResolution } from "@/lib/resolve/bulk-plan";

/** Operators only, since it asks a processor about up to 500 claims at once. */
export const POST = contractRoute(bulkPlanContract, async ({ db, actor, body, reply }) => {
  if ("filter" in body) {
    const tenant = await checkTenantFilter(db, actor, body.filter.tenant ?? null);
    if (!tenant.ok) return tenant;
  }
  return reply(await planBulkResolution(db, getConfig(), actor, body));
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(bulkPlanContract.method);
