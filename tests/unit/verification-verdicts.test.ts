import { describe, expect, it } from "vitest";
import { NO_EVIDENCE, type ToolEvidence } from "@/lib/annotations/tool-audit-types";
import { verdictFor, type VerdictInput } from "@/lib/annotations/verdicts";
import { effectiveAnnotations } from "@/lib/tool-listings/effective-annotations";
import { testRun } from "../fixtures/tool-verification-run";

// How a stored double-call test sits with the traffic verdicts (lib/annotations/verdicts.ts).
const claimed = effectiveAnnotations({ readOnlyHint: false, idempotentHint: true });
const keyed: ToolEvidence = { ...NO_EVIDENCE, records: 4, completed: 4, lastSeen: "2026-12-01T18:00:00.000Z" };
const input = (overrides: Partial<VerdictInput>): VerdictInput => ({
  tool: "charge_card",
  effective: claimed,
  evidence: NO_EVIDENCE,
  review: null,
  window: "24h",
  ...overrides,
});
const verified = testRun({ verdict: "verified" });
const failed = testRun({ verdict: "failed", step: "upstream", summary: "the carrier created 2 shipments" });

describe("a double-call test in the verdict", () => {
  it("a passing test on the current listing reads verified, with or without keys in the window", () => {
    for (const evidence of [NO_EVIDENCE, keyed]) {
      const verdict = verdictFor(input({ evidence, verification: verified }));
      expect(verdict).toMatchObject({ kind: "claim_verified_by_test", label: "verified", tone: "good", certain: true });
      expect(verdict.fix).toBeNull();
      expect(verdict.explanation).toContain("run by admin@demo.test at 2026-12-01 19:00 UTC");
      // The traffic evidence stays in the words.
      expect(verdict.explanation).toContain(`The table: ${evidence.records} rows in the last 24h`);
    }
  });

  it("a failed test refutes the claim even when keys back it, naming the step and what was seen", () => {
    const verdict = verdictFor(input({ evidence: keyed, verification: failed }));
    expect(verdict).toMatchObject({ kind: "claim_refuted_by_test", label: "refuted", tone: "danger", certain: true });
    expect(verdict.explanation).toContain("contradicts it: run by");
    expect(verdict.explanation).toContain("failed at the upstream step: the carrier created 2 shipments.");
    expect(verdict.fix).toMatch(/Derive a key on the server/);
  });

  it("a stale test, passing or failing, leaves the traffic verdict and says it is stale", () => {
    for (const run of [verified, failed]) {
      const verdict = verdictFor(input({ evidence: keyed, verification: { ...run, stale: true } }));
      expect(verdict.kind).toBe("claim_backed_by_keys");
      expect(verdict.explanation).toMatch(/The latest double-call test \((verified|failed), .*\) is stale/);
    }
    expect(verdictFor(input({ verification: { ...verified, stale: true } })).kind).toBe("claim_without_key_evidence");
  });

  it("stuck claims do not unmake a passing test: still verified, the stuck claims named with their fix", () => {
    const verdict = verdictFor(input({ evidence: { ...keyed, stuck: 1 }, verification: verified }));
    expect(verdict).toMatchObject({ kind: "claim_verified_by_test", tone: "good" });
    expect(verdict.explanation).toContain("But 1 claim is stuck in_progress.");
    expect(verdict.fix).toMatch(/^Resolve them on the Stuck page/);
  });

  it("an inconclusive test decides nothing and says how to make it conclusive", () => {
    const verdict = verdictFor(
      input({
        verification: testRun({
          verdict: "inconclusive",
          step: "answers",
          summary: "the first call finished before the repeats arrived",
          evidence: {
            calls: [],
            checks: [],
            rows: [],
            upstream: null,
            hint: "Slow the upstream: the demo processor's latencyMs",
          },
        }),
      }),
    );
    expect(verdict.kind).toBe("claim_without_key_evidence");
    expect(verdict.explanation).toContain(
      "inconclusive at the answers step: the first call finished before the repeats arrived. Slow the upstream",
    );
  });

  it("on a tool that claims nothing a test only advises: safe repeats may be claimed, unsafe ones must not be", () => {
    const unclaimed = effectiveAnnotations({});
    expect(verdictFor(input({ effective: unclaimed, verification: verified }))).toMatchObject({ kind: "not_claimed" });
    expect(verdictFor(input({ effective: unclaimed, verification: verified })).explanation).toMatch(
      /idempotentHint: true may be set/,
    );
    expect(verdictFor(input({ effective: unclaimed, verification: failed })).explanation).toMatch(
      /hosts must not be told to retry it/,
    );
    // Read-only: idempotentHint does not apply, so a failed test refutes no claim.
    expect(
      verdictFor(input({ effective: effectiveAnnotations({ readOnlyHint: true }), verification: failed })).kind,
    ).toBe("read_only");
  });

  it("the Verdict column quotes every current run's sentence, so the test column need not repeat it; a stale run's it leaves out", () => {
    const summary = "a sentence only this run says";
    for (const effective of [claimed, effectiveAnnotations({}), effectiveAnnotations({ readOnlyHint: true })])
      for (const verdict of ["verified", "failed", "inconclusive"] as const)
        for (const stale of [false, true]) {
          const run = testRun({ verdict, step: verdict === "verified" ? null : "table", summary, stale });
          const explanation = verdictFor(input({ effective, verification: run })).explanation;
          expect(explanation.includes(summary), `${verdict} stale=${stale}`).toBe(!stale);
        }
  });
});
