import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { parseKeyParam } from "@/lib/records/record-detail";
import { checkRecord } from "@/lib/resolve/check-record";

/**
 * POST /api/v1/records/{key}/check → what the processor says happened to this key. Read-only; a
 * POST because it calls out to another system each time (never cached, never prefetched), so
 * from a browser it needs a same-origin Origin header like any other POST.
 */
export const POST = apiRoute<{ key: string }>("records:check-processor", async ({ actor, params }) => {
  const param = parseKeyParam(params.key);
  if (param.kind === "invalid") return jsonError(400, "bad_key", param.message);
  if (param.kind === "ref") return jsonError(400, "ref_not_key", `${param.ref} is a 12-hex ref, not a key: look it up first.`);
  const result = await checkRecord(getDb(), getConfig(), actor, param.key);
  if (!result) return jsonError(404, "not_found", "No record with this key in the tenants you can see.");
  return Response.json(result);
});
