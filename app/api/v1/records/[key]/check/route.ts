import { apiRoute } from "@/lib/api/api-route";
import { recordKeyFromPath } from "@/lib/api/record-key-param";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { checkRecord } from "@/lib/resolve/check-record";

/**
 * POST /api/v1/records/{key}/check → what the processor says happened to this key. Read-only; a
 * POST because it calls out to another system each time (never cached, never prefetched), so
 * from a browser it needs a same-origin Origin header like any other POST.
 */
export const POST = apiRoute<{ key: string }>("records:check-processor", async ({ actor, params }) => {
  const param = recordKeyFromPath(params.key);
  if (!param.ok) return param.response;
  const result = await checkRecord(getDb(), getConfig(), actor, param.key);
  if (!result) return jsonError(404, "not_found", "No record with this key in the tenants you can see.");
  return Response.json(result);
});
