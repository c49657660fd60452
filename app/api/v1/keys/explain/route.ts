import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { getDb } from "@/lib/db/client";
import { explainKey, parseExplainParams } from "@/lib/records/explain-key";

/**
 * GET /api/v1/keys/explain?tenant=&subject=&tool=&args=&at=&window=&scheme=&compare=
 * → canonical form, material, bucket, key and ref; the previous/same/next bucket keys with the
 * records found (your tenants only); with `compare`, the first canonical byte that differs.
 */
export const GET = apiRoute("keys:explain", async ({ request, actor }) => {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const parsed = parseExplainParams(params, new Date());
  if (!parsed.ok) return jsonError(400, "bad_request", parsed.errors.map((e) => e.message).join("; "), { fields: parsed.errors });
  const result = await explainKey(getDb(), actor, parsed.input);
  if (!result.ok) return jsonError(400, "bad_request", result.errors.map((e) => e.message).join("; "), { fields: result.errors });
  return Response.json(result.explanation);
});
