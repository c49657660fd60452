import { HINT_NAMES, type HintName, type ListedTool } from "@/lib/tool-listings/annotation-types";
import { declaredHints } from "@/lib/tool-listings/effective-annotations";

export type ToolChange =
  | { tool: string; change: "tool_added" }
  | { tool: string; change: "tool_removed" }
  | { tool: string; change: "hint_added"; hint: HintName; to: boolean }
  | { tool: string; change: "hint_removed"; hint: HintName; from: boolean }
  | { tool: string; change: "hint_flipped"; hint: HintName; from: boolean; to: boolean };

/**
 * What changed in declared hints between two listings of one server. Only the four hints are
 * compared: a new description is not a change in what hosts are told about retries.
 */
export function diffListings(previous: ListedTool[], current: ListedTool[]): ToolChange[] {
  const before = new Map(previous.map((t) => [t.name, declaredHints(t.annotations)]));
  const after = new Map(current.map((t) => [t.name, declaredHints(t.annotations)]));
  const changes: ToolChange[] = [];
  for (const name of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const was = before.get(name);
    const now = after.get(name);
    if (!was) {
      changes.push({ tool: name, change: "tool_added" });
      continue;
    }
    if (!now) {
      changes.push({ tool: name, change: "tool_removed" });
      continue;
    }
    for (const hint of HINT_NAMES) {
      const from = was[hint];
      const to = now[hint];
      if (from === to) continue;
      if (from === undefined && to !== undefined) changes.push({ tool: name, change: "hint_added", hint, to });
      else if (from !== undefined && to === undefined) changes.push({ tool: name, change: "hint_removed", hint, from });
      else if (from !== undefined && to !== undefined)
        changes.push({ tool: name, change: "hint_flipped", hint, from, to });
    }
  }
  return changes;
}

export function describeChange(change: ToolChange): string {
  switch (change.change) {
    case "tool_added":
      return "tool added";
    case "tool_removed":
      return "tool removed";
    case "hint_added":
      return `${change.hint}: ${change.to} added`;
    case "hint_removed":
      return `${change.hint}: ${change.from} removed`;
    case "hint_flipped":
      return `${change.hint}: ${change.from} → ${change.to}`;
  }
}
