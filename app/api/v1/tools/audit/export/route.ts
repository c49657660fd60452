import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { buildToolsAudit, parseAuditWindow } from "@/lib/annotations/build-audit";
import { auditToJson, auditToMarkdown } from "@/lib/annotations/export-audit";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";

/** GET /api/v1/tools/audit/export?format=md|json&window=… → a file for a code review. */
export const GET = apiRoute("tools:read", async ({ request, actor }) => {
  const params = new URL(request.url).searchParams;
  const format = params.get("format") ?? "md";
  if (format !== "md" && format !== "json") return jsonError(400, "bad_format", "format must be md or json.");
  const window = parseAuditWindow(params.get("window"));
  if (!window) return jsonError(400, "bad_window", "window must be one of 24h, 48h, 7d.");
  const audit = await buildToolsAudit(getDb(), getConfig(), actor, window);
  const stamp = audit.generatedAt.slice(0, 19).replace(/[:T]/g, "-");
  const body = format === "md" ? auditToMarkdown(audit) : auditToJson(audit);
  return new Response(body, {
    headers: {
      "content-type": format === "md" ? "text/markdown; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="tool-annotation-audit-${stamp}.${format}"`,
    },
  });
});
