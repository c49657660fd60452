import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { toolsReviewContract } from "@/lib/api/contracts/tools";
import { recordNaturallyIdempotentReview } from "@/lib/annotations/annotation-reviews";

export const POST = contractRoute(toolsReviewContract, async ({ db, actor, body, reply }) => {
  const outcome = await recordNaturallyIdempotentReview(db, actor, body);
  if (!outcome.ok) return outcome;
  return reply({ reviewId: outcome.reviewId, auditId: outcome.auditId }, 201);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(toolsReviewContract.method);
