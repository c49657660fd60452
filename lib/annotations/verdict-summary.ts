import type { ToolEvidence } from "@/lib/annotations/tool-audit-types";
import { VERDICT_WORDS, type VerdictKind, type VerdictTone } from "./verdicts";

/**
 * How many rows carry one verdict: the summary line is these, and nothing else. `unresolved` counts the
 * rows among them that hold unresolved claims (stuck, or awaiting an outcome the processor never reported),
 * and those claims: a verdict that outranks "unresolved" (a passing double-call test) keeps them in view.
 */
export type VerdictCount = {
  verdict: VerdictKind;
  word: string;
  tone: VerdictTone;
  count: number;
  unresolved: { rows: number; claims: number };
};

type SummaryRow = {
  verdict: VerdictKind;
  tone: VerdictTone;
  evidence?: Pick<ToolEvidence, "stuck" | "unresolvedOutcomeUnknown">;
};

/**
 * Counts the verdicts of exactly the rows given, in VERDICT_WORDS order (worst first), leaving out
 * verdicts no row has: the summary can never name a figure the rows below it do not show.
 */
export function summarizeVerdicts(rows: readonly SummaryRow[]): VerdictCount[] {
  const counts = new Map<VerdictKind, VerdictCount>();
  for (const row of rows) {
    const claims = (row.evidence?.stuck ?? 0) + (row.evidence?.unresolvedOutcomeUnknown ?? 0);
    let entry = counts.get(row.verdict);
    if (!entry) {
      entry = {
        verdict: row.verdict,
        word: VERDICT_WORDS[row.verdict],
        tone: row.tone,
        count: 0,
        unresolved: { rows: 0, claims: 0 },
      };
      counts.set(row.verdict, entry);
    }
    entry.count += 1;
    if (claims > 0) {
      entry.unresolved.rows += 1;
      entry.unresolved.claims += claims;
    }
  }
  return (Object.keys(VERDICT_WORDS) as VerdictKind[]).flatMap((kind) => counts.get(kind) ?? []);
}

/** "2 unresolved · 1 unbacked · 3 as declared": the same words as the rows' badges. */
export function verdictSummaryText(summary: readonly VerdictCount[]): string {
  return summary.length === 0 ? "no tools" : summary.map((s) => `${s.count} ${s.word}`).join(" · ");
}

/**
 * The unresolved claims of rows whose verdict is another word ("495 claims of 1 verified tool"), so the line
 * never drops "unresolved" while claims wait for an operator; null when there are none.
 */
export function alsoUnresolved(summary: readonly VerdictCount[]): { claims: number; text: string }[] | null {
  const parts = summary
    .filter((s) => s.verdict !== "claim_with_unresolved_rows" && s.unresolved.rows > 0)
    .map((s) => ({
      claims: s.unresolved.claims,
      text: `${s.unresolved.claims === 1 ? "claim" : "claims"} of ${s.unresolved.rows} ${s.word} ${s.unresolved.rows === 1 ? "tool" : "tools"}`,
    }));
  return parts.length === 0 ? null : parts;
}

/** "also unresolved: 495 claims of 1 verified tool", or null. */
export function alsoUnresolvedText(summary: readonly VerdictCount[]): string | null {
  const parts = alsoUnresolved(summary);
  return parts === null ? null : `also unresolved: ${parts.map((p) => `${p.claims} ${p.text}`).join(", ")}`;
}
