import { apiRoute } from "@/lib/api/api-route";
import { paramProblemsError } from "@/lib/api/strict-params";
import { unknownTenantError } from "@/lib/api/unknown-tenant";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { parseMetricsQuery } from "@/lib/metrics/metrics-params";
import { getMetrics } from "@/lib/metrics/query-metrics";
import { checkTenantFilter } from "@/lib/records/tenant-filter";

/** GET /api/v1/metrics?window=1h|24h|48h&tool&tenant — duplicate-suppression figures, per tool and tenant, and their series. */
export const GET = apiRoute("metrics:read", async ({ request, actor }) => {
  const parsed = parseMetricsQuery(new URL(request.url).searchParams, { unknownParams: "reject" });
  if (!parsed.ok) return paramProblemsError(parsed.problems);
  const tenant = await checkTenantFilter(getDb(), actor, parsed.value.tenant);
  if (!tenant.ok) return unknownTenantError(tenant);
  return Response.json(await getMetrics(getDb(), getConfig(), actor, parsed.value, new Date()));
});
