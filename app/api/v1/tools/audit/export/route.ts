import { contractRoute } from "@/lib/api/contract-route";
import { API_CACHE_CONTROL } from "@/lib/security/security-headers";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { toolsAuditExportContract } from "@/lib/api/contracts/tools";
import { buildToolsAudit, parseAuditWindow } from "@/lib/annotations/build-audit";
import { AUDIT_EXPORT_FORMATS } from "@/lib/annotations/tool-audit-types";
import { auditToJson, auditToMarkdown } from "@/lib/annotations/export-audit";
import { getConfig } from "@/lib/config/load";

export const GET = contractRoute(toolsAuditExportContract, async ({ db, readDb, actor, query }) => {
  const format = AUDIT_EXPORT_FORMATS.find((f) => f === (query.format ?? "md"));
  if (format === undefined) return { ok: false, code: "bad_format", message: "format must be md or json." };
  const window = parseAuditWindow(query.window);
  if (!window) return { ok: false, code: "bad_window", message: "window must be one of 24h, 48h, 7d." };
  const audit = await buildToolsAudit(db, getConfig(), actor, window, new Date(), { evidenceDb: readDb });
  const stamp = audit.generatedAt.slice(0, 19).replace(/[:T]/g, "-");
  return new Response(format === "md" ? auditToMarkdown(audit) : auditToJson(audit), {
    headers: {
      "content-type": format === "md" ? "text/markdown; charset=utf-8" : "application/json; charset=utf-8",
      "content-disposition": `attachment; filename="tool-annotation-audit-${stamp}.${format}"`,
      "cache-control": API_CACHE_CONTROL,
    },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(toolsAuditExportContract.method);
