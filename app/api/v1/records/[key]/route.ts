import { apiRoute } from "@/lib/api/api-route";
import { recordKeyFromPath } from "@/lib/api/record-key-param";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { getRecordDetail, parseKeyParam } from "@/lib/records/record-detail";

/** GET /api/v1/records/{key} → the record, its timeline and audit entries; 404 when absent or another tenant's. */
export const GET = apiRoute<{ key: string }>("records:read", async ({ actor, params }) => {
  const param = recordKeyFromPath(params.key);
  if (!param.ok) return param.response;
  const detail = await getRecordDetail(getDb(), getConfig(), actor, param.key, new Date());
  if (!detail) return jsonError(404, "not_found", "No record with this key in the tenants you can see.");
  return Response.json(detail);
});
