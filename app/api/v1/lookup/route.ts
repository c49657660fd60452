import { z } from "zod";
import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { lookUpRefs } from "@/lib/records/lookup";
import { redactionOf } from "@/lib/records/redact";

const querySchema = z.object({ q: z.string({ error: "q: required — the text to search for refs (an error message, a ref or a key)" }) });

/** GET /api/v1/lookup?q=<pasted text> → the records its refs and keys name, within your tenants. */
export const GET = apiRoute("records:lookup", async ({ request, actor }) => {
  const parsed = querySchema.safeParse({ q: new URL(request.url).searchParams.get("q") ?? undefined });
  if (!parsed.success) return jsonError(400, "bad_request", parsed.error.issues[0]?.message ?? "q: required");
  const result = await lookUpRefs(getDb(), actor, parsed.data.q, { redact: redactionOf(getConfig()) });
  if (result.kind === "invalid") return jsonError(400, "text_too_long", result.message);
  if (result.kind === "no_refs") return jsonError(400, "no_ref", result.message);
  const { kind: _kind, ...body } = result;
  return Response.json(body);
});
