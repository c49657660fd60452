import { DEFAULT_WINDOW_SECONDS } from "idem-guard";
import type { IdemConfig } from "@/lib/config/schema";

/**
 * How the tool's writer buckets its keys (docs/architecture.md#keys-and-buckets), as far as the console
 * knows: the tool's `window` or `businessKey` in idem.config.json, else the reference text's 900 s bucket.
 * The same arguments within one bucket derive the same key, so a run inside the bucket of an earlier row
 * with those arguments is answered from that row.
 */
export type KeyWindow = { kind: "bucket"; seconds: number; source: "config" | "default" } | { kind: "business_key" };

export function keyWindowOf(config: Pick<IdemConfig, "tools">, tool: string): KeyWindow {
  const settings = config.tools[tool];
  if (settings?.businessKey) return { kind: "business_key" };
  if (settings?.window !== undefined) return { kind: "bucket", seconds: settings.window / 1000, source: "config" };
  return { kind: "bucket", seconds: DEFAULT_WINDOW_SECONDS, source: "default" };
}

/** int(time.time()) // window_s: whole seconds first (toward zero), then the floor division, as derive-key does. */
export function bucketOf(at: Date, seconds: number): number {
  return Math.floor(Math.trunc(at.getTime() / 1000) / seconds);
}

/** (floor(created_at_unix / window) + 1) * window: from then on the same arguments derive a new key. */
export function bucketEnd(at: Date, seconds: number): Date {
  return new Date((bucketOf(at, seconds) + 1) * seconds * 1000);
}

/** The first bucket edge inside [from, to], or null when the whole span is in one bucket. */
export function bucketEdgeWithin(from: Date, to: Date, seconds: number): Date | null {
  return bucketOf(from, seconds) === bucketOf(to, seconds) ? null : bucketEnd(from, seconds);
}

/** "the default 900 s bucket (idem.config.json sets no window for charge_card)", "its configured 600 s bucket". */
export function describeKeyWindow(window: KeyWindow, tool: string): string {
  if (window.kind === "business_key") return `its business key (idem.config.json: tools.${tool}.businessKey)`;
  return window.source === "config"
    ? `its ${window.seconds} s bucket (idem.config.json: tools.${tool}.window)`
    : `the default ${window.seconds} s bucket (idem.config.json sets no window for ${tool}, so the reference text's is assumed)`;
}

/** "2026-12-01 19:15:00 UTC": to the second, as a person compares it with a clock. */
export function utcSecond(at: Date | string): string {
  const iso = typeof at === "string" ? at : at.toISOString();
  return `${iso.slice(0, 19).replace("T", " ")} UTC`;
}
