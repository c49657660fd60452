import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { checkArgumentsContract } from "@/lib/api/contracts/records";
import { checkRecordArguments } from "@/lib/records/check-arguments";

/** Read-only; a POST so the pasted arguments (personal data, often) stay out of URLs and access logs. */
export const POST = contractRoute(checkArgumentsContract, async ({ db, actor, params, body, reply }) => {
  const result = await checkRecordArguments(db, actor, params.key, body);
  if (!result.ok) return result;
  const { ok: _ok, ...check } = result;
  return reply(check);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(checkArgumentsContract.method);
