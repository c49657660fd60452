import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { describeProblems, parseRecordsQuery } from "@/lib/records/list-filters";
import { loadRecordsListing } from "@/lib/records/records-listing";

/** GET /api/v1/records?tenant&tool&status&stuck&from&to&cursor&dir&limit — one page, newest first, with facet counts. */
export const GET = apiRoute("records:read", async ({ request, actor }) => {
  const parsed = parseRecordsQuery(new URL(request.url).searchParams, { unknownParams: "reject" });
  if (!parsed.ok) return jsonError(400, "bad_request", describeProblems(parsed.problems), { params: parsed.problems.map((p) => p.param) });
  return Response.json(await loadRecordsListing(getDb(), actor, parsed.value, getConfig(), new Date()));
});
