import { formatInstant, instantRule } from "@/lib/url-state/field-rules";
import { fieldSchema, type ParamProblem } from "@/lib/url-state/strict-params";

export { formatInstant };

/** The instant fields and the time range every filtered list shares (records, audit). Client components take formatInstant from field-rules.ts (this file brings zod). */

/** An instant parameter (field-rules.ts `instantRule`). */
export const instantSchema = fieldSchema(instantRule);

/** `from` must come before `to` (both records and the audit log filter on a half-open range). */
export function timeRangeProblem({ from, to }: { from?: Date; to?: Date }): ParamProblem | null {
  if (!from || !to || from.getTime() < to.getTime()) return null;
  return { param: "from", message: `from (${formatInstant(from)}) must be earlier than to (${formatInstant(to)})` };
}
