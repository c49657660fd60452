import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { exportRecords } from "@/lib/records/export-records";
import { describeProblems, parseRecordsExportQuery } from "@/lib/records/list-filters";

/** GET /api/v1/records/export?format=csv|json&<the list's filters> — a streamed, bounded download. */
export const GET = apiRoute("records:export", async ({ request, actor }) => {
  const parsed = parseRecordsExportQuery(new URL(request.url).searchParams);
  if (!parsed.ok) return jsonError(400, "bad_request", describeProblems(parsed.problems), { params: parsed.problems.map((p) => p.param) });
  const file = exportRecords(getDb(), actor, parsed.value.filter, getConfig(), new Date(), { format: parsed.value.format });
  return new Response(file.stream, {
    headers: {
      "content-type": file.contentType,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "cache-control": "no-store",
      "x-idem-export-max-rows": String(file.maxRows),
    },
  });
});
