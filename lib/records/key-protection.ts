import { DEFAULT_KEY_WINDOW_MS, type IdemConfig } from "@/lib/config/schema";
import { RETENTION_MS } from "@/lib/retention/retention-window";

/**
 * Until when a record's key still catches a repeat (docs/architecture.md#keys-and-buckets). A time-bucketed
 * key stops at the end of the bucket its claim falls in: an identical call after that derives another key and
 * runs again. A business key holds for as long as the row is kept (the trim deletes it after 48 h).
 */
export type KeyProtection =
  | {
      kind: "bucket";
      windowMs: number;
      /** config: the tool's `window`; default: the reference writers' 900 s (the tool names none). */
      windowSource: "config" | "default";
      bucketStart: string;
      until: string;
      ended: boolean;
    }
  | { kind: "business_key"; until: null; trimmedAfter: string };

export function keyProtection(
  config: Pick<IdemConfig, "tools">,
  row: { tool: string | null; createdAt: Date },
  now: Date,
): KeyProtection {
  const settings = row.tool === null ? undefined : config.tools[row.tool];
  if (settings?.businessKey) {
    return {
      kind: "business_key",
      until: null,
      trimmedAfter: new Date(row.createdAt.getTime() + RETENTION_MS).toISOString(),
    };
  }
  const windowMs = settings?.window ?? DEFAULT_KEY_WINDOW_MS;
  // int(time.time()) // window_s: whole seconds first, then the floor division (as derive-key does).
  const seconds = Math.trunc(row.createdAt.getTime() / 1000);
  const windowSeconds = windowMs / 1000;
  const bucketStartMs = Math.floor(seconds / windowSeconds) * windowMs;
  const untilMs = bucketStartMs + windowMs;
  return {
    kind: "bucket",
    windowMs,
    windowSource: settings?.window === undefined ? "default" : "config",
    bucketStart: new Date(bucketStartMs).toISOString(),
    until: new Date(untilMs).toISOString(),
    ended: now.getTime() >= untilMs,
  };
}
