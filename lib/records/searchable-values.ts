import type { IdemConfig } from "@/lib/config/schema";
import { searchSpecs } from "@/lib/config/search-specs";
import { REDACTED } from "@/lib/privacy/redact";

/** A searchable field of one record as its page shows it; `value` null: masked for every role. */
export type SearchableValue = { label: string; path: string; value: string | null };

/**
 * The record's searchable fields (its tool's `search` in idem.config.json), read from the response
 * as the page shows it, i.e. already masked: a value masked there stays masked here (null). Only
 * strings and numbers, as a search matches them; a field the response lacks is left out.
 */
export function searchableValuesOf(
  config: Pick<IdemConfig, "tools">,
  tool: string | null,
  maskedResponse: unknown,
): SearchableValue[] {
  if (tool === null) return [];
  return searchSpecs(config)
    .filter((spec) => spec.tool === tool)
    .flatMap((spec) => {
      let node: unknown = maskedResponse;
      for (const segment of spec.segments)
        node =
          node !== null && typeof node === "object" ? (node as Record<string | number, unknown>)[segment] : undefined;
      if (typeof node !== "string" && typeof node !== "number") return [];
      const text = String(node);
      return [{ label: spec.label, path: spec.path, value: text.includes(REDACTED) ? null : text }];
    });
}
