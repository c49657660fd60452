import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { checkRecordContract } from "@/lib/api/contracts/records";
import { getConfig } from "@/lib/config/load";
import { checkRecord } from "@/lib/resolve/check-record-with-processor";

/** A POST because it calls out to another system each time (never cached, never prefetched). */
export const POST = contractRoute(checkRecordContract, async ({ db, actor, params, reply }) => {
  const result = await checkRecord(db, getConfig(), actor, params.key);
  if (!result) return { ok: false, code: "not_found", message: "No record with this key in the tenants you can see." };
  return reply(result);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(checkRecordContract.method);
