import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { resolveRecordContract } from "@/lib/api/contracts/records";
import { getConfig } from "@/lib/config/load";
import { findOldestStuckClaim } from "@/lib/records/stuck-claims";
import { resolveRecord } from "@/lib/resolve/resolve-record";

/** The contract admits operators; resolveRecord checks release and force-release itself. */
export const POST = contractRoute(resolveRecordContract, async ({ db, actor, params, body, reply }) => {
  const { nextStuckWithin, ...input } = body;
  const outcome = await resolveRecord(db, getConfig(), actor, params.key, input);
  if (!outcome.ok) return outcome;
  const { ok: _ok, ...result } = outcome;
  // The operator's next step: the oldest claim still stuck that they can see, in the filter they work in.
  return reply({
    ...result,
    nextStuck: await findOldestStuckClaim(db, actor, getConfig(), new Date(), nextStuckWithin),
  });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(resolveRecordContract.method);
