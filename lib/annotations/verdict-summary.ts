import { VERDICT_WORDS, type VerdictKind, type VerdictTone } from "./verdicts";

/** How many rows carry one verdict: the summary line is these, and nothing else. */
export type VerdictCount = { verdict: VerdictKind; word: string; tone: VerdictTone; count: number };

/**
 * Counts the verdicts of exactly the rows given, in VERDICT_WORDS order (worst first), leaving out
 * verdicts no row has: the summary can never name a figure the rows below it do not show.
 */
export function summarizeVerdicts(rows: readonly { verdict: VerdictKind; tone: VerdictTone }[]): VerdictCount[] {
  const counts = new Map<VerdictKind, VerdictCount>();
  for (const row of rows) {
    const entry = counts.get(row.verdict);
    if (entry) entry.count += 1;
    else counts.set(row.verdict, { verdict: row.verdict, word: VERDICT_WORDS[row.verdict], tone: row.tone, count: 1 });
  }
  return (Object.keys(VERDICT_WORDS) as VerdictKind[]).flatMap((kind) => counts.get(kind) ?? []);
}

/** "2 unresolved · 1 unbacked · 3 as declared": the same words as the rows' badges. */
export function verdictSummaryText(summary: readonly VerdictCount[]): string {
  return summary.length === 0 ? "no tools" : summary.map((s) => `${s.count} ${s.word}`).join(" · ");
}
