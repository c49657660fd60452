import { apiRoute } from "@/lib/api/api-route";
import { paramProblemsError } from "@/lib/api/strict-params";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { parseRecordsQuery } from "@/lib/records/list-filters";
import { loadRecordsListing } from "@/lib/records/records-listing";

/** GET /api/v1/records?tenant&tool&status&stuck&from&to&cursor&dir&limit — one page, newest first, with facet counts. */
export const GET = apiRoute("records:read", async ({ request, actor }) => {
  const parsed = parseRecordsQuery(new URL(request.url).searchParams, { unknownParams: "reject" });
  if (!parsed.ok) return paramProblemsError(parsed.problems);
  return Response.json(await loadRecordsListing(getDb(), actor, parsed.value, getConfig(), new Date()));
});
