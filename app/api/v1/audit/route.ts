import { apiRoute } from "@/lib/api/api-route";
import { paramProblemsError } from "@/lib/api/strict-params";
import { unknownTenantError } from "@/lib/api/unknown-tenant";
import { listAudit, parseAuditQuery } from "@/lib/audit/list-audit";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { checkTenantFilter } from "@/lib/records/tenant-filter";
import { redactionOf } from "@/lib/records/redact";

/** GET /api/v1/audit?actor&action&key&tenant&from&to&cursor&limit — one page of the audit log, newest first. */
export const GET = apiRoute("audit:read", async ({ request, actor }) => {
  const parsed = parseAuditQuery(new URL(request.url).searchParams, { unknownParams: "reject" });
  if (!parsed.ok) return paramProblemsError(parsed.problems);
  const tenant = await checkTenantFilter(getDb(), actor, parsed.value.tenant);
  if (!tenant.ok) return unknownTenantError(tenant);
  return Response.json(await listAudit(getDb(), actor, parsed.value, { redact: redactionOf(getConfig()) }));
});
