import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { listAudit, parseAuditQuery } from "@/lib/audit/list-audit";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { describeProblems } from "@/lib/records/list-filters";

/** GET /api/v1/audit?actor&action&key&tenant&from&to&cursor&limit — one page of the audit log, newest first. */
export const GET = apiRoute("audit:read", async ({ request, actor }) => {
  const parsed = parseAuditQuery(new URL(request.url).searchParams, { unknownParams: "reject" });
  if (!parsed.ok) return jsonError(400, "bad_request", describeProblems(parsed.problems), { params: parsed.problems.map((p) => p.param) });
  return Response.json(await listAudit(getDb(), actor, parsed.value, { redact: getConfig().redact }));
});
