import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { duplicatesContract } from "@/lib/api/contracts/duplicates";
import { getConfig } from "@/lib/config/load";
import { readDuplicates } from "@/lib/duplicates/duplicates-report";
import { checkTenantFilter } from "@/lib/records/tenant-filter";

export const GET = contractRoute(duplicatesContract, async ({ readDb, actor, query, reply }) => {
  const tenant = await checkTenantFilter(readDb, actor, query.tenant);
  if (!tenant.ok) return tenant;
  return reply(await readDuplicates(readDb, getConfig(), actor, query, new Date()));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(duplicatesContract.method);
