import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { lookupContract } from "@/lib/api/contracts/records";
import { getConfig } from "@/lib/config/load";
import { lookUpRefs } from "@/lib/records/lookup";
import { redactionOf } from "@/lib/privacy/redact";
import { lookupSearchFields } from "@/lib/search/lookup-search-fields";

// Its first read carries the bearer token's check (lib/auth/carried-token-check.ts).
export const GET = contractRoute(
  lookupContract,
  async ({ readDb, actor, query, reply, tokenCheck }) => {
    const result = await lookUpRefs(readDb, actor, query.q ?? "", {
      redact: redactionOf(getConfig()),
      searchFields: lookupSearchFields(actor),
      tokenCheck,
    });
    if (result.kind === "invalid") return { ok: false, code: "text_too_long", message: result.message };
    if (result.kind === "no_refs") return { ok: false, code: "no_ref", message: result.message };
    const { kind: _kind, ...body } = result;
    return reply(body);
  },
  { carriesTokenCheck: true },
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(lookupContract.method);
