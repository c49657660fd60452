import { apiRoute } from "@/lib/api/api-route";
import { readJsonBody } from "@/lib/api/json-body";
import { jsonError } from "@/lib/api/json-error";
import { recordNaturallyIdempotentReview, reviewInputSchema } from "@/lib/annotations/annotation-reviews";
import { getDb } from "@/lib/db/client";

/** POST /api/v1/tools/reviews {server, tool, reason} → 201 {reviewId, auditId}: "naturally idempotent", audited. */
export const POST = apiRoute("annotations:review", async ({ request, actor }) => {
  const body = await readJsonBody(request, reviewInputSchema);
  if (!body.ok) return body.response;
  const outcome = await recordNaturallyIdempotentReview(getDb(), actor, body.value);
  if (!outcome.ok) return jsonError(outcome.status, "forbidden", outcome.message);
  return Response.json({ reviewId: outcome.reviewId, auditId: outcome.auditId }, { status: 201 });
});
