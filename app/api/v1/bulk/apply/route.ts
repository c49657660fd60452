import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { bulkApplyContract } from "@/lib/api/contracts/operations";
import { getConfig } from "@/lib/config/load";
import { findOldestStuckClaim } from "@/lib/records/stuck-claims";
import { applyBulkPlan } from "@/lib/resolve/bulk-apply-run";

/** Always 200 when the request itself was sound: each row's fate is in its own result. */
export const POST = contractRoute(bulkApplyContract, async ({ db, actor, body, reply }) => {
  const { nextStuckWithin, ...input } = body;
  const applied = await applyBulkPlan(db, getConfig(), actor, input);
  return reply({
    ...applied,
    nextStuck: await findOldestStuckClaim(db, actor, getConfig(), new Date(), nextStuckWithin),
  });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(bulkApplyContract.method);
