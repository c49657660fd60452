export type ReconcileAction = "completed" | "released" | "left" | "conflict";

export type ReconcileTotals = Record<ReconcileAction, number> & {
  /** Candidates this run never took: another reconciler held them, or they were resolved meanwhile. */
  skipped: number;
  /** Rows whose transaction failed (database error): left as they were. */
  errors: number;
};

/**
 * A reconcile run's totals from its rows, one way for the sweep and the run over named keys, and
 * what it left unresolved: the rows still in_progress because of it (left or in conflict).
 */
export function reconcileTotals(
  rows: readonly { action: ReconcileAction }[],
  counted: { skipped: number; errors: number },
): { totals: ReconcileTotals; unresolved: number } {
  const totals: ReconcileTotals = { completed: 0, released: 0, left: 0, conflict: 0, ...counted };
  for (const row of rows) totals[row.action] += 1;
  return { totals, unresolved: totals.left + totals.conflict };
}
