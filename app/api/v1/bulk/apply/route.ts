import { apiRoute } from "@/lib/api/api-route";
import { readJsonBody } from "@/lib/api/json-body";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { applyBulkResolution, bulkApplyInputSchema } from "@/lib/resolve/bulk-plan";

/**
 * POST /api/v1/bulk/apply {reason, rows: [{key, action, expectedUpdatedAt}]} (≤ 50 rows: send a
 * plan in batches) → {results: [{key, result: ok|conflict|changed_outcome|error, message, ...}], totals}.
 * Always 200 when the request itself was sound: each row's fate is in its own result.
 */
export const POST = apiRoute("records:resolve", async ({ request, actor }) => {
  const body = await readJsonBody(request, bulkApplyInputSchema);
  if (!body.ok) return body.response;
  return Response.json(await applyBulkResolution(getDb(), getConfig(), actor, body.value));
});
