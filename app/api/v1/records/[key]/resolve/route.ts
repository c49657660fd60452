import { apiRoute } from "@/lib/api/api-route";
import { recordKeyFromPath } from "@/lib/api/record-key-param";
import { readJsonBody } from "@/lib/api/json-body";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { resolveInputSchema, resolveRecord } from "@/lib/resolve/resolve-record";

/**
 * POST /api/v1/records/{key}/resolve {action: "complete"|"release", reason, expectedUpdatedAt, force?, confirm?}
 * → 200 {action, forced, before, after, check, auditId}. The console asks the processor itself;
 * 409 {error: {code: "conflict", current, check}} when the row changed since `expectedUpdatedAt`
 * (nothing overwritten) or the processor's answer is unknown; 422 when the answer does not allow
 * the action. apiRoute admits operators; resolveRecord checks release and force-release itself.
 */
export const POST = apiRoute<{ key: string }>("records:resolve", async ({ request, actor, params }) => {
  const param = recordKeyFromPath(params.key);
  if (!param.ok) return param.response;
  const body = await readJsonBody(request, resolveInputSchema);
  if (!body.ok) return body.response;
  const outcome = await resolveRecord(getDb(), getConfig(), actor, param.key, body.value);
  if (!outcome.ok) {
    return jsonError(outcome.status, outcome.code, outcome.message, {
      ...(outcome.current !== undefined ? { current: outcome.current } : {}),
      ...(outcome.check ? { check: outcome.check } : {}),
    });
  }
  const { ok: _ok, ...result } = outcome;
  return Response.json(result);
});
