import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { listRecordsContract } from "@/lib/api/contracts/records";
import { getConfig } from "@/lib/config/load";
import { loadRecordsListing } from "@/lib/records/records-listing";
import { checkTenantFilter } from "@/lib/records/tenant-filter";

export const GET = contractRoute(listRecordsContract, async ({ readDb, actor, query, reply }) => {
  const tenant = await checkTenantFilter(readDb, actor, query.tenant);
  if (!tenant.ok) return tenant;
  return reply(await loadRecordsListing(readDb, actor, query, getConfig(), new Date()));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(listRecordsContract.method);
