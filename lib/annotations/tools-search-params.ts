import { createLoader, createSerializer, parseAsStringLiteral } from "nuqs/server";
import { AUDIT_WINDOWS, type AuditWindow } from "@/lib/annotations/tool-audit-types";

/**
 * THE tools page's URL state: the evidence window. An unknown window reads as the default, as
 * before (the page has nothing else to show). Imported by client components: no server code here.
 */
export const DEFAULT_TOOLS_WINDOW: AuditWindow = "24h";

export const toolsSearchParams = {
  window: parseAsStringLiteral(Object.keys(AUDIT_WINDOWS) as AuditWindow[]).withDefault(DEFAULT_TOOLS_WINDOW),
};

export const loadToolsParams = createLoader(toolsSearchParams);

/** `serializeToolsParams("/tools", { window })` → the page over that window. */
export const serializeToolsParams = createSerializer(toolsSearchParams);
