import { apiRoute } from "@/lib/api/api-route";
import { recordKeyFromPath } from "@/lib/api/record-key-param";
import { readJsonBody } from "@/lib/api/json-body";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { revealInputSchema, revealResponse } from "@/lib/records/reveal-response";

/**
 * POST /api/v1/records/{key}/reveal {reason} → {key, ref, response, revealedPaths, auditId}: the
 * stored response unmasked, for operators and admins, written to the audit log as record.reveal.
 */
export const POST = apiRoute<{ key: string }>("records:reveal", async ({ request, actor, params }) => {
  const param = recordKeyFromPath(params.key);
  if (!param.ok) return param.response;
  const body = await readJsonBody(request, revealInputSchema);
  if (!body.ok) return body.response;
  const result = await revealResponse(getDb(), getConfig(), actor, param.key, body.value);
  if (!result.ok) return jsonError(result.status, result.code, result.message);
  const { ok: _ok, ...revealed } = result;
  return Response.json(revealed);
});
