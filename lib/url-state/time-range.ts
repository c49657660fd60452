import { z } from "zod";
import { expectedInstant, parseInstant } from "@/lib/format/instant";
import { quoteInput } from "@/lib/text/quote-input";
import type { ParamProblem } from "@/lib/url-state/strict-params";

/** The instant fields and the time range every filtered list shares (records, audit). Imported by client components: no server code. */

/** The URL form of an instant: ISO UTC, without a zero millisecond part. */
export function formatInstant(date: Date): string {
  return date.toISOString().replace(".000Z", "Z");
}

/** An instant parameter (lib/format/instant.ts: a time without a zone is refused), with an example of each accepted form. */
export const instantSchema = z.string().transform((value, ctx) => {
  const date = parseInstant(value);
  if (!date) {
    ctx.addIssue({ code: "custom", message: `expected ${expectedInstant()}, got ${quoteInput(value)}` });
    return z.NEVER;
  }
  return date;
});

/** `from` must come before `to` (both records and the audit log filter on a half-open range). */
export function timeRangeProblem({ from, to }: { from?: Date; to?: Date }): ParamProblem | null {
  if (!from || !to || from.getTime() < to.getTime()) return null;
  return { param: "from", message: `from (${formatInstant(from)}) must be earlier than to (${formatInstant(to)})` };
}
