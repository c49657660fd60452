import { contractRoute } from "@/lib/api/contract-route";
import { API_CACHE_CONTROL } from "@/lib/security/security-headers";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { exportRecordsContract } from "@/lib/api/contracts/records";
import { getConfig } from "@/lib/config/load";
import { exportRecords } from "@/lib/records/export-records";
import { checkTenantFilter } from "@/lib/records/tenant-filter";

export const GET = contractRoute(exportRecordsContract, async ({ readDb, exportReadDb, actor, query }) => {
  const tenant = await checkTenantFilter(readDb, actor, query.filter.tenant);
  if (!tenant.ok) return tenant;
  const file = exportRecords(exportReadDb, actor, query.filter, getConfig(), new Date(), { format: query.format });
  return new Response(file.stream, {
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": API_CACHE_CONTROL,
      "x-idem-export-max-rows": String(file.maxRows),
    },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(exportRecordsContract.method);
