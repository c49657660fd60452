import { createHash } from "node:crypto";
import { parseSearchPath, type PathSegment } from "@/lib/config/searchable-fields";
import type { IdemConfig } from "@/lib/config/schema";
import { getConfig } from "@/lib/config/load";

/** One searchable response field of one tool, with the expression index that serves it. */
export type SearchSpec = {
  tool: string;
  label: string;
  path: string;
  segments: PathSegment[];
  /** `idem_search_<tool>_<label>`, or shortened with a hash when that is not a plain name of ≤ 63 bytes. */
  indexName: string;
  /** The indexed expression, written identically in the index and in every query so the planner matches them. */
  expression: string;
  /** The path as a text[] literal, for `response #> path` (the value's JSON type). */
  pathLiteral: string;
};

export const SEARCH_INDEX_PREFIX = "idem_search_";
const MAX_IDENTIFIER = 63;

/** Every (tool, label, path) the configuration names, in a stable order. */
export function searchSpecs(config: Pick<IdemConfig, "tools">): SearchSpec[] {
  const specs: SearchSpec[] = [];
  for (const tool of Object.keys(config.tools).sort()) {
    const search = config.tools[tool]?.search ?? {};
    for (const label of Object.keys(search).sort()) {
      const path = search[label]!;
      const parsed = parseSearchPath(path);
      if (!parsed.ok) continue; // the config schema refused it already
      specs.push({
        tool,
        label,
        path,
        segments: parsed.segments,
        indexName: indexNameOf(tool, label),
        expression: `(response #>> ${textArrayLiteral(parsed.segments)})`,
        pathLiteral: textArrayLiteral(parsed.segments),
      });
    }
  }
  return specs;
}

/**
 * The labels configured on any tool (a label on two tools searches both), those most tools share
 * first, so the records page's field picker starts at the one most likely meant.
 */
export function searchLabels(config: Pick<IdemConfig, "tools">): string[] {
  const tools = new Map<string, number>();
  for (const spec of searchSpecs(config)) tools.set(spec.label, (tools.get(spec.label) ?? 0) + 1);
  return [...tools].sort(([a, m], [b, n]) => n - m || a.localeCompare(b)).map(([label]) => label);
}

export function specsOfLabel(config: Pick<IdemConfig, "tools">, label: string): SearchSpec[] {
  return searchSpecs(config).filter((spec) => spec.label === label);
}

function indexNameOf(tool: string, label: string): string {
  const plain = `${SEARCH_INDEX_PREFIX}${tool}_${label}`;
  if (/^[a-z0-9_]+$/.test(plain) && plain.length <= MAX_IDENTIFIER) return plain;
  // Tool names may hold . : - or capitals, and two tools could read alike once cleaned: the hash keeps them apart.
  const hash = createHash("sha256").update(`${tool}\u0000${label}`).digest("hex").slice(0, 8);
  const cleaned = plain.toLowerCase().replace(/[^a-z0-9_]/g, "_");
  return `${cleaned.slice(0, MAX_IDENTIFIER - hash.length - 1)}_${hash}`;
}

// Segments are names of [A-Za-z0-9_] or digits (parseSearchPath), so they need no quoting in the literal.
function textArrayLiteral(segments: readonly PathSegment[]): string {
  return `'{${segments.map(String).join(",")}}'::text[]`;
}

/** The tool as an SQL literal (tool names are [A-Za-z0-9_.:-], quoted anyway). */
export function toolLiteral(tool: string): string {
  return `'${tool.replace(/'/g, "''")}'`;
}

/** The labels of the configuration this process serves, for the parsers of the records list and export. */
export function configuredSearchLabels(): string[] {
  return searchLabels(getConfig());
}
