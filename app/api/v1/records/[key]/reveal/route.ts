import { apiRoute } from "@/lib/api/api-route";
import { readJsonBody } from "@/lib/api/json-body";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { parseKeyParam } from "@/lib/records/record-detail";
import { revealInputSchema, revealResponse } from "@/lib/records/reveal-response";

/**
 * POST /api/v1/records/{key}/reveal {reason} → {key, ref, response, revealedPaths, auditId}: the
 * stored response unmasked, for operators and admins, written to the audit log as record.reveal.
 */
export const POST = apiRoute<{ key: string }>("records:reveal", async ({ request, actor, params }) => {
  const param = parseKeyParam(params.key);
  if (param.kind === "invalid") return jsonError(400, "bad_key", param.message);
  if (param.kind === "ref") return jsonError(400, "ref_not_key", `${param.ref} is a 12-hex ref, not a key: look it up first.`);
  const body = await readJsonBody(request, revealInputSchema);
  if (!body.ok) return body.response;
  const result = await revealResponse(getDb(), getConfig(), actor, param.key, body.value);
  if (!result.ok) return jsonError(result.status, result.code, result.message);
  const { ok: _ok, ...revealed } = result;
  return Response.json(revealed);
});
