import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { toolsVerifyContract } from "@/lib/api/contracts/tools";
import { runToolVerification } from "@/lib/annotations/verify-tool/run-verification";
import { getConfig } from "@/lib/config/load";

export const POST = contractRoute(toolsVerifyContract, async ({ db, actor, body, reply }) => {
  const outcome = await runToolVerification(actor, body, { db, config: getConfig() });
  if (!outcome.ok) return outcome;
  return reply({ verification: outcome.verification, auditId: outcome.auditId });
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(toolsVerifyContract.method);
