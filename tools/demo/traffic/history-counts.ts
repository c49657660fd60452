import type { ScenarioKind } from "@/tools/demo/traffic/plan-types";

/** What the generator did, as the caller saw it (the outcome comes from the demo's result `_meta`). */
export type HistoryCounts = {
  scenarios: number;
  scenariosByKind: Partial<Record<ScenarioKind, number>>;
  calls: number;
  /** tool → outcome (executed, replayed, in_flight, outcome_unknown, performed, answered, declined, error) → calls. */
  callsByTool: Record<string, Record<string, number>>;
  /** Calls skipped because the call they depended on produced nothing to use (a failed charge). */
  skipped: number;
  /** Calls the MCP layer itself refused (should be 0); the first messages are kept. */
  protocolErrors: number;
  protocolErrorSamples: string[];
  /** Receipt emails the shop's mail service "sent" (its side effects). */
  receiptEmails: number;
  durationMs: number;
};

export function emptyCounts(): HistoryCounts {
  return {
    scenarios: 0,
    scenariosByKind: {},
    calls: 0,
    callsByTool: {},
    skipped: 0,
    protocolErrors: 0,
    protocolErrorSamples: [],
    receiptEmails: 0,
    durationMs: 0,
  };
}

export function countCall(counts: HistoryCounts, tool: string, outcome: string): void {
  counts.calls += 1;
  const byOutcome = (counts.callsByTool[tool] ??= {});
  byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
}

/** Adds `part` into `total` (shares of one history run by separate workers). */
export function mergeCounts(total: HistoryCounts, part: HistoryCounts): void {
  total.scenarios += part.scenarios;
  for (const [kind, n] of Object.entries(part.scenariosByKind)) {
    const k = kind as keyof HistoryCounts["scenariosByKind"];
    total.scenariosByKind[k] = (total.scenariosByKind[k] ?? 0) + n;
  }
  total.calls += part.calls;
  for (const [tool, byOutcome] of Object.entries(part.callsByTool)) {
    const into = (total.callsByTool[tool] ??= {});
    for (const [outcome, n] of Object.entries(byOutcome)) into[outcome] = (into[outcome] ?? 0) + n;
  }
  total.skipped += part.skipped;
  total.protocolErrors += part.protocolErrors;
  total.receiptEmails += part.receiptEmails;
  total.protocolErrorSamples.push(...part.protocolErrorSamples.slice(0, 5 - total.protocolErrorSamples.length));
}
