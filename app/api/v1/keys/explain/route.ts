import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { explainKeyContract } from "@/lib/api/contracts/records";
import { explainKey, parseExplainParams, type FieldError } from "@/lib/records/explain-key";

const refusal = (errors: FieldError[]) => ({
  ok: false as const,
  code: "bad_request" as const,
  message: errors.map((e) => e.message).join("; "),
  details: { fields: errors },
});

export const GET = contractRoute(explainKeyContract, async ({ db, actor, query, reply }) => {
  const parsed = parseExplainParams(query, new Date());
  if (!parsed.ok) return refusal(parsed.errors);
  const result = await explainKey(db, actor, parsed.input);
  if (!result.ok) return refusal(result.errors);
  return reply(result.explanation);
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(explainKeyContract.method);
