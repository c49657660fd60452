import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { recordDetailContract } from "@/lib/api/contracts/records";
import { getConfig } from "@/lib/config/load";
import { getRecordDetail } from "@/lib/records/record-detail";

/** 404 when absent or another tenant's: the same answer, so existence is not data. */
// Its one read carries the bearer token's check (lib/auth/carried-token-check.ts).
export const GET = contractRoute(
  recordDetailContract,
  async ({ db, actor, params, reply, tokenCheck }) => {
    const detail = await getRecordDetail(db, getConfig(), actor, params.key, new Date(), tokenCheck);
    if (!detail)
      return { ok: false, code: "not_found", message: "No record with this key in the tenants you can see." };
    return reply(detail);
  },
  { carriesTokenCheck: true },
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(recordDetailContract.method);
