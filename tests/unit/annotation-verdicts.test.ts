import { describe, expect, it } from "vitest";
import { NO_EVIDENCE, type ToolEvidence } from "@/lib/annotations/tool-audit-types";
import { declaredHints, effectiveAnnotations } from "@/lib/tool-listings/effective-annotations";
import { diffListings } from "@/lib/annotations/snapshot-diff";
import { parseToolsListing } from "@/lib/annotations/parse-listing";
import { testRun } from "../fixtures/tool-verification-run";
import { alsoUnresolvedText, summarizeVerdicts, verdictSummaryText } from "@/lib/annotations/verdict-summary";
import {
  VERDICT_KINDS,
  VERDICT_WORDS,
  verdictFor,
  type VerdictInput,
  type VerdictKind,
} from "@/lib/annotations/verdicts";

const claimed = effectiveAnnotations({ readOnlyHint: false, idempotentHint: true });
const unclaimed = effectiveAnnotations({});
const readOnly = effectiveAnnotations({ readOnlyHint: true, idempotentHint: true, destructiveHint: true });
const keyed: ToolEvidence = {
  ...NO_EVIDENCE,
  records: 12,
  completed: 11,
  inProgress: 1,
  replays: 3,
  lastSeen: "2026-11-29T10:00:00.000Z",
};
const input = (overrides: Partial<VerdictInput>): VerdictInput => ({
  tool: "t",
  effective: claimed,
  evidence: NO_EVIDENCE,
  review: null,
  window: "24h",
  ...overrides,
});
const review = {
  reviewedBy: "admin@demo.test",
  reviewedAt: "2026-11-29T12:00:00.000Z",
  reason: "sets the address; a repeat writes the same value",
};

describe("effective annotations", () => {
  it("applies the spec's defaults to an unannotated tool", () => {
    expect(effectiveAnnotations({})).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });
  it("keeps declared values", () => {
    expect(
      effectiveAnnotations({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }),
    ).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  });
  it("destructive and idempotent do not apply to a read-only tool, whatever it declares", () => {
    expect(readOnly).toEqual({ readOnlyHint: true, destructiveHint: null, idempotentHint: null, openWorldHint: true });
  });
  it("reads only boolean hints: a string is not a declaration", () => {
    expect(declaredHints({ idempotentHint: "yes", readOnlyHint: false, title: "x" })).toEqual({ readOnlyHint: false });
    expect(declaredHints(undefined)).toEqual({});
  });
});

const cases = (): [VerdictKind, VerdictInput][] => [
  ["claim_verified_by_test", input({ verification: testRun({ verdict: "verified" }) })],
  ["claim_refuted_by_test", input({ evidence: keyed, verification: testRun({ verdict: "failed", step: "table" }) })],
  ["claim_backed_by_keys", input({ evidence: keyed })],
  ["claim_with_unresolved_rows", input({ evidence: { ...keyed, stuck: 2 } })],
  ["claim_with_unresolved_rows", input({ evidence: { ...keyed, outcomeUnknown: 1, unresolvedOutcomeUnknown: 1 } })],
  ["claim_without_key_evidence", input({})],
  ["claim_without_recent_evidence", input({ evidence: { ...NO_EVIDENCE, lastSeen: "2026-11-20T00:00:00.000Z" } })],
  ["claim_reviewed_naturally_idempotent", input({ review })],
  ["keyed_not_claimed", input({ effective: unclaimed, evidence: keyed })],
  ["not_claimed", input({ effective: unclaimed })],
  ["read_only", input({ effective: readOnly })],
  ["read_only_with_records", input({ effective: readOnly, evidence: keyed })],
  ["records_for_unlisted_tool", input({ effective: null, evidence: keyed })],
];

describe("verdicts", () => {
  it.each(cases())("%s", (kind, verdictInput) => {
    const verdict = verdictFor(verdictInput);
    expect(verdict.kind).toBe(kind);
    expect(verdict.explanation).toContain("t");
    expect(verdict.label.length).toBeGreaterThan(0);
  });
  it("covers every verdict kind", () => {
    expect(new Set(cases().map(([kind]) => kind))).toEqual(new Set(VERDICT_KINDS));
  });

  it("a claim with no key evidence is the danger verdict, with the key fix and the review alternative", () => {
    const verdict = verdictFor(input({ tool: "create_shipment" }));
    expect(verdict).toMatchObject({ tone: "danger", certain: false, label: "unbacked" });
    expect(verdict.explanation).toMatch(/Hosts will retry it on a timeout/);
    expect(verdict.fix).toMatch(/sha256\(tenant\|subject\|tool\|canonical-json\(arguments\)\|time-bucket\)/);
    expect(verdict.fix).toMatch(/naturally|a set, not an append/);
  });
  it("keyed but not claimed says the hint may be set", () => {
    expect(verdictFor(input({ effective: unclaimed, evidence: keyed })).fix).toMatch(/idempotentHint: true may be set/);
  });
  it("a review shows who and why", () => {
    expect(verdictFor(input({ review })).explanation).toContain(
      "reviewed by admin@demo.test on 2026-11-29: sets the address",
    );
  });
  it("keys beat a review: evidence, when present, decides", () => {
    expect(verdictFor(input({ review, evidence: keyed })).kind).toBe("claim_backed_by_keys");
  });
  it("stuck rows older than the window still count against a claim", () => {
    expect(
      verdictFor(input({ evidence: { ...NO_EVIDENCE, stuck: 1, lastSeen: "2026-11-01T00:00:00.000Z" } })).kind,
    ).toBe("claim_with_unresolved_rows");
  });
  it("explicit idempotentHint: false is no claim, as is its absence", () => {
    expect(verdictFor(input({ effective: effectiveAnnotations({ idempotentHint: false }) })).kind).toBe("not_claimed");
  });
  it("read-only semantics: idempotentHint: true on a read-only tool claims nothing", () => {
    expect(verdictFor(input({ effective: readOnly })).kind).toBe("read_only");
  });
  it("only a claim with nothing in the window behind it is uncertain: rows could overturn it", () => {
    const uncertain = new Set<VerdictKind>(["claim_without_key_evidence", "claim_without_recent_evidence"]);
    for (const [, verdictInput] of cases()) {
      const verdict = verdictFor(verdictInput);
      expect(verdict.certain, verdict.kind).toBe(!uncertain.has(verdict.kind));
    }
  });
  it("a read-only tool with no rows and no contradiction is 'as declared', and certain", () => {
    expect(verdictFor(input({ effective: readOnly }))).toMatchObject({
      kind: "read_only",
      label: "as declared",
      certain: true,
      fix: null,
    });
  });
  it("a read-only tool keyed before the window is still contradicted by its keys", () => {
    const verdict = verdictFor(
      input({ effective: readOnly, evidence: { ...NO_EVIDENCE, lastSeen: "2026-11-20T00:00:00.000Z" } }),
    );
    expect(verdict).toMatchObject({ kind: "read_only_with_records", label: "contradicted", certain: true });
    expect(verdict.explanation).toContain("the newest at 2026-11-20T00:00:00.000Z");
  });
  it("a claimed tool with unresolved rows is 'unresolved', never a word that also reads 'backed'; its explanation names only what is not zero", () => {
    const stuck = verdictFor(input({ evidence: { ...keyed, stuck: 2 } }));
    expect(stuck.label).toBe("unresolved");
    expect(stuck.explanation).toContain("but 2 claims are stuck in_progress. A host");
    const unknown = verdictFor(input({ evidence: { ...keyed, outcomeUnknown: 1, unresolvedOutcomeUnknown: 1 } }));
    expect(unknown.explanation).toContain("but 1 row still awaits an outcome the processor never reported. A host");
  });
  it("every verdict's label is its one word, and no two verdicts share a word", () => {
    for (const [kind, verdictInput] of cases()) expect(verdictFor(verdictInput).label).toBe(VERDICT_WORDS[kind]);
    expect(new Set(Object.values(VERDICT_WORDS)).size).toBe(VERDICT_KINDS.length);
  });
  it("only good verdicts have no fix, except the neutral no-claim ones", () => {
    for (const [, verdictInput] of cases()) {
      const verdict = verdictFor(verdictInput);
      if (verdict.tone === "danger" || verdict.tone === "warn") expect(verdict.fix, verdict.kind).not.toBeNull();
    }
  });
});

describe("the verdict summary", () => {
  it("counts exactly the rows' verdicts, under their words, worst first", () => {
    const rows = cases()
      .map(([, verdictInput]) => verdictFor(verdictInput))
      .map((v) => ({ verdict: v.kind, tone: v.tone }));
    const summary = summarizeVerdicts(rows);
    expect(summary.reduce((n, s) => n + s.count, 0)).toBe(rows.length);
    for (const entry of summary)
      expect(entry.count, entry.word).toBe(rows.filter((r) => r.verdict === entry.verdict).length);
    expect(summary.map((s) => s.word)).toEqual(
      Object.values(VERDICT_WORDS).filter((w) => summary.some((s) => s.word === w)),
    );
    expect(summary.find((s) => s.verdict === "claim_with_unresolved_rows")?.count).toBe(2);
  });
  it("keeps 'unresolved' in the line when a verified tool has 495 stuck claims (issue #27)", () => {
    const stuck = { ...keyed, stuck: 495 };
    const verified = verdictFor(input({ evidence: stuck, verification: testRun({ verdict: "verified" }) }));
    expect(verified.kind).toBe("claim_verified_by_test");
    const backed = verdictFor(input({ evidence: keyed }));
    const rows = [
      { verdict: verified.kind, tone: verified.tone, evidence: stuck },
      { verdict: backed.kind, tone: backed.tone, evidence: keyed },
    ];
    const summary = summarizeVerdicts(rows);
    // The counts are still exactly the rows' verdicts…
    expect(verdictSummaryText(summary)).toBe("1 backed · 1 verified");
    // …and the stuck claims behind the verified one are named beside them, under the word "unresolved".
    expect(summary.find((s) => s.verdict === "claim_verified_by_test")?.unresolved).toEqual({ rows: 1, claims: 495 });
    expect(alsoUnresolvedText(summary)).toBe("also unresolved: 495 claims of 1 verified tool");
    // A row that is "unresolved" already is counted under its word, not again.
    const unresolved = verdictFor(input({ evidence: { ...keyed, stuck: 2 } }));
    expect(
      alsoUnresolvedText(
        summarizeVerdicts([{ verdict: unresolved.kind, tone: unresolved.tone, evidence: { ...keyed, stuck: 2 } }]),
      ),
    ).toBeNull();
  });
  it("names no verdict that no row has", () => {
    const backed = verdictFor(input({ evidence: keyed }));
    const asDeclared = verdictFor(input({ effective: readOnly }));
    const rows = [backed, asDeclared, asDeclared].map((v) => ({ verdict: v.kind, tone: v.tone }));
    expect(verdictSummaryText(summarizeVerdicts(rows))).toBe("1 backed · 2 as declared");
    expect(verdictSummaryText(summarizeVerdicts([]))).toBe("no tools");
  });
});

describe("listing diffs", () => {
  it("names tools added and removed, and hints added, removed and flipped", () => {
    const before = [
      { name: "a", annotations: { idempotentHint: true, readOnlyHint: false } },
      { name: "b", annotations: { readOnlyHint: true } },
      { name: "gone" },
    ];
    const after = [
      { name: "a", annotations: { idempotentHint: false, destructiveHint: false } },
      { name: "b", annotations: { readOnlyHint: true, title: "renamed" } },
      { name: "new" },
    ];
    expect(diffListings(before, after)).toEqual([
      { tool: "a", change: "hint_removed", hint: "readOnlyHint", from: false },
      { tool: "a", change: "hint_added", hint: "destructiveHint", to: false },
      { tool: "a", change: "hint_flipped", hint: "idempotentHint", from: true, to: false },
      { tool: "gone", change: "tool_removed" },
      { tool: "new", change: "tool_added" },
    ]);
  });
});

describe("uploaded listings", () => {
  it("accepts a result or a JSON-RPC response", () => {
    expect(parseToolsListing('{"tools":[{"name":"x","annotations":{"idempotentHint":true}}]}')).toEqual({
      ok: true,
      tools: [{ name: "x", annotations: { idempotentHint: true } }],
    });
    expect(parseToolsListing({ jsonrpc: "2.0", id: 1, result: { tools: [{ name: "y" }] } })).toEqual({
      ok: true,
      tools: [{ name: "y" }],
    });
    // The input schema is kept (the Verify dialog shows it; a verification hashes it); other fields are not.
    const schema = { type: "object", properties: { card: { type: "string" } }, required: ["card"] };
    expect(parseToolsListing({ tools: [{ name: "z", inputSchema: schema, description: "d", _meta: {} }] })).toEqual({
      ok: true,
      tools: [{ name: "z", inputSchema: schema }],
    });
    expect(parseToolsListing({ tools: [{ name: "z", inputSchema: "not an object" }] })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/tools\.0\.inputSchema/),
    });
  });
  it("says what is wrong with bad JSON, a wrong shape, or a name twice", () => {
    expect(parseToolsListing("{not json")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/not valid JSON/),
    });
    expect(parseToolsListing('{"tools":[{"title":"x"}]}')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/Not a tools\/list result.*tools\.0\.name/),
    });
    expect(parseToolsListing('{"tools":[{"name":"x"},{"name":"x"}]}')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/twice/),
    });
  });
});
