import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { allowRepeatContract } from "@/lib/api/contracts/records";
import { allowRepeat } from "@/lib/resolve/allow-repeat";

/** The contract admits operators; allowRepeat checks the role again inside its action. */
export const POST = contractRoute(allowRepeatContract, async ({ db, actor, params, body, reply }) => {
  const outcome = await allowRepeat(db, actor, params.key, body);
  if (!outcome.ok) return outcome;
  return reply({ before: outcome.before, auditId: outcome.auditId });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(allowRepeatContract.method);
