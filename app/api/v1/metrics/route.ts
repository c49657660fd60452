import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { metricsContract } from "@/lib/api/contracts/operations";
import { getConfig } from "@/lib/config/load";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { checkTenantFilter } from "@/lib/records/tenant-filter";

export const GET = contractRoute(metricsContract, async ({ db, readDb, actor, query, reply }) => {
  const tenant = await checkTenantFilter(readDb, actor, query.tenant);
  if (!tenant.ok) return tenant;
  return reply(await getMetrics(readDb, getConfig(), actor, query, new Date(), { rollUpOn: db }));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(metricsContract.method);
