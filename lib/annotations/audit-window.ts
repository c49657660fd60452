import { AUDIT_WINDOWS, type AuditWindow } from "./tool-audit-types";
import { HOUR_MS, floorTo } from "@/lib/metrics/metrics-window";

/**
 * The audit window's start: `now − window` floored to its UTC hour. Whole hours come from the
 * hourly rollup and minute slices; a start mid-hour would count its partial hour from the base
 * table on every request (up to ~208,000 rows at 10 M, docs/bench.md). So "24h" spans 24 h to 25 h.
 */
export function auditWindowStart(window: AuditWindow, now: Date): Date {
  return floorTo(new Date(now.getTime() - AUDIT_WINDOWS[window]), HOUR_MS);
}

/** How explanations name the window: its length and its real start, `24h (since 2026-11-30 22:00 UTC)`. */
export function auditWindowPhrase(window: AuditWindow, since: Date): string {
  return `${window} (since ${since.toISOString().slice(0, 16).replace("T", " ")} UTC)`;
}
