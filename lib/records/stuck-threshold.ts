import type { IdemConfig } from "@/lib/config/schema";

/**
 * A claim is stuck when it is in_progress for longer than its tool's `stuckAfter` (default
 * `defaultStuckAfter`, 5 min). The threshold must exceed the longest a processor call can take,
 * or a live call would be shown as stuck.
 */
export function stuckAfterMs(config: IdemConfig, tool: string | null): number {
  return (tool !== null ? config.tools[tool]?.stuckAfter : undefined) ?? config.defaultStuckAfter;
}

export function isStuck(
  config: IdemConfig,
  row: { status: string; tool: string | null; createdAt: Date },
  now: Date,
): boolean {
  return row.status === "in_progress" && now.getTime() - row.createdAt.getTime() > stuckAfterMs(config, row.tool);
}

/** The configured tools whose threshold is not the default, grouped by threshold: the SQL's branches. */
export function toolsByOwnThreshold(config: IdemConfig): Map<number, string[]> {
  const byThreshold = new Map<number, string[]>();
  for (const tool of Object.keys(config.tools)) {
    const ms = stuckAfterMs(config, tool);
    if (ms !== config.defaultStuckAfter) byThreshold.set(ms, [...(byThreshold.get(ms) ?? []), tool]);
  }
  return byThreshold;
}
