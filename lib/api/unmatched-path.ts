import "server-only";
import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";

/**
 * An /api/v1 path no route file matches: the API's JSON 404 instead of the console's HTML page.
 * It checks the caller first, like every route, so an anonymous status never tells which paths exist.
 */
export const unmatchedApiPath = apiRoute<{ path: string[] }>("records:read", async ({ request }) =>
  jsonError(404, "not_found", `No API route at ${new URL(request.url).pathname}; GET /api/v1/openapi.json lists them.`),
);
