import { JSONPath } from "jsonpath-plus";

export const REDACTED = "[redacted]";

/**
 * Masks every value matched by the configured JSONPaths (`$..card`, `$.customer.email`).
 * Returns a copy; the input is never changed. Script expressions are disabled (eval: false):
 * the paths come from a config file, but nothing in it should ever run code.
 */
export function redactJson(value: unknown, paths: string[]): { value: unknown; redactedPaths: string[] } {
  if (value === null || typeof value !== "object" || paths.length === 0) return { value, redactedPaths: [] };
  const copy = structuredClone(value) as object;
  const redactedPaths = new Set<string>();
  for (const path of paths) {
    const matches = JSONPath({ path, json: copy, resultType: "all", eval: false, wrap: true }) as {
      parent: Record<string | number, unknown> | null;
      parentProperty: string | number | null;
      path: string;
    }[];
    for (const match of matches) {
      if (match.parent && match.parentProperty !== null) {
        match.parent[match.parentProperty] = REDACTED;
        redactedPaths.add(match.path);
      }
    }
  }
  return { value: copy, redactedPaths: [...redactedPaths].sort() };
}

// Nobody sees the configured paths by default, whatever their role: operators and admins may
// reveal one record's stored response, with a reason, and each reveal is audited
// (lib/records/reveal-response.ts). Everything else — pages, API, exports, the audit log, the
// processor's receipts — shows them masked.
