import { apiRoute } from "@/lib/api/api-route";
import { readJsonBody } from "@/lib/api/json-body";
import { jsonError } from "@/lib/api/json-error";
import { addHttpServer, addServerSchema } from "@/lib/annotations/server-store";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";

/**
 * POST /api/v1/tools/servers {name, url, headers?} → 201 {server} (header names only). Admins
 * only; `transport: "stdio"` or any command field is a 400: stdio servers come only from the file.
 */
export const POST = apiRoute("tools:configure", async ({ request, actor }) => {
  const body = await readJsonBody(request, addServerSchema);
  if (!body.ok) return body.response;
  const outcome = await addHttpServer(getDb(), getConfig(), actor, body.value);
  if (!outcome.ok) return jsonError(outcome.status, outcome.code, outcome.message);
  return Response.json({ server: outcome.server }, { status: 201 });
});
