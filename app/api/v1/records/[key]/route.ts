import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { getRecordDetail, parseKeyParam } from "@/lib/records/record-detail";

/** GET /api/v1/records/{key} → the record, its timeline and audit entries; 404 when absent or another tenant's. */
export const GET = apiRoute<{ key: string }>("records:read", async ({ actor, params }) => {
  const param = parseKeyParam(params.key);
  if (param.kind === "invalid") return jsonError(400, "bad_key", param.message);
  if (param.kind === "ref") return jsonError(400, "ref_not_key", `${param.ref} is a 12-hex ref, not a key: use GET /api/v1/lookup?q=${param.ref}.`);
  const detail = await getRecordDetail(getDb(), getConfig(), actor, param.key, new Date());
  if (!detail) return jsonError(404, "not_found", "No record with this key in the tenants you can see.");
  return Response.json(detail);
});
