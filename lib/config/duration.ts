import { z } from "zod";
import { quoteInput } from "@/lib/text/quote-input";

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A duration's text (exported for documents that state it as a pattern). */
export const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

/** "90s", "5m", "48h" → milliseconds; null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  const unit = match[2] as keyof typeof UNIT_MS;
  return Math.round(Number(match[1]) * UNIT_MS[unit]);
}

export const durationSchema = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) {
    ctx.addIssue({
      code: "custom",
      message: `expected a positive duration like "90s", "5m" or "48h" (got ${quoteInput(text)})`,
    });
    return z.NEVER;
  }
  return ms;
});

/** A positive duration, or "off" (a job that can be switched off). */
export const durationOrOffSchema = z.string().transform((text, ctx): number | "off" => {
  if (text === "off") return "off";
  const ms = parseDuration(text);
  if (ms === null || ms <= 0) {
    ctx.addIssue({
      code: "custom",
      message: `expected "off" or a positive duration like "15s" or "1m" (got ${quoteInput(text)})`,
    });
    return z.NEVER;
  }
  return ms;
});

export function formatDuration(ms: number): string {
  for (const unit of ["d", "h", "m", "s"] as const) {
    if (ms % UNIT_MS[unit] === 0) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
