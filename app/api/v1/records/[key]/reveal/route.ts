import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { revealRecordContract } from "@/lib/api/contracts/records";
import { getConfig } from "@/lib/config/load";
import { revealResponse } from "@/lib/records/reveal-response";

export const POST = contractRoute(revealRecordContract, async ({ db, actor, params, body, reply }) => {
  const result = await revealResponse(db, getConfig(), actor, params.key, body);
  if (!result.ok) return result;
  const { ok: _ok, ...revealed } = result;
  return reply(revealed);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(revealRecordContract.method);
