import type { MetricsFigures } from "@/lib/metrics/metrics-report";
import type { VerifiedUpstream } from "@/lib/metrics/verified-upstream";

/** A tool row also says whether the tool was seen at all and what its listing declares. */
export type ToolFacts = { seen: boolean; declaredIdempotentHint: boolean | null; listedBy: string[] };

export type RiskRow = {
  id: string;
  label: string;
  href: string | null;
  muted?: boolean;
  tool?: ToolFacts;
  /** What the tool's upstream counted in its newest stored verify run (tools only). */
  upstream?: VerifiedUpstream | null;
} & MetricsFigures;

/** A tool that claims idempotentHint with nothing of it in the window: nothing backs the claim. */
export const unbackedRow = (r: RiskRow) =>
  r.tool !== undefined && !r.tool.seen && r.tool.declaredIdempotentHint === true;
