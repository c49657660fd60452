import { apiRoute } from "@/lib/api/api-route";
import { paramProblemsError } from "@/lib/api/strict-params";
import { unknownTenantError } from "@/lib/api/unknown-tenant";
import { getConfig } from "@/lib/config/load";
import { getDb, getExportDb } from "@/lib/db/client";
import { exportRecords } from "@/lib/records/export-records";
import { parseRecordsExportQuery } from "@/lib/records/list-filters";
import { checkTenantFilter } from "@/lib/records/tenant-filter";

/** GET /api/v1/records/export?format=csv|json&<the list's filters> — a streamed, bounded download. */
export const GET = apiRoute("records:export", async ({ request, actor }) => {
  const parsed = parseRecordsExportQuery(new URL(request.url).searchParams);
  if (!parsed.ok) return paramProblemsError(parsed.problems);
  const tenant = await checkTenantFilter(getDb(), actor, parsed.value.filter.tenant);
  if (!tenant.ok) return unknownTenantError(tenant);
  const file = exportRecords(getExportDb(), actor, parsed.value.filter, getConfig(), new Date(), { format: parsed.value.format });
  return new Response(file.stream, {
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "no-store",
      "x-idem-export-max-rows": String(file.maxRows),
    },
  });
});
