import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import type { ToolVerificationResult } from "@/lib/annotations/tool-verification-types";
import { canonicalOf } from "@/lib/annotations/verify-tool/answer-text";
import { classifyAnswer } from "@/lib/annotations/verify-tool/classify-answer";
import { reorderedArguments } from "@/lib/annotations/verify-tool/key-orders";
import { judgeAnswers, type AnswersFinding } from "@/lib/annotations/verify-tool/judge-answers";
import {
  attributeRows,
  judgeTable,
  type AnsweredCall,
  type TableFinding,
  type TableRow,
} from "@/lib/annotations/verify-tool/judge-table";
import { bucketEdgeWithin, bucketEnd, keyWindowOf, type KeyWindow } from "@/lib/annotations/verify-tool/key-window";
import { settleFindings } from "@/lib/annotations/verify-tool/settle-findings";
import type { UpstreamFinding } from "@/lib/annotations/verify-tool/upstream-finding";
import { decideVerdict, REJECTED_ARGUMENTS_HINT, SLOW_UPSTREAM_HINT } from "@/lib/annotations/verify-tool/verdict";
import { verificationJunit } from "@/lib/cli/verification-junit";
import { inFlightMessage, outcomeUnknownMessage } from "idem-guard";

// The runner's pure parts: how an answer is read (in the guard's own words), the key orders, the
// verdict, and the JUnit file (escaped, and parseable whatever the answers held).
describe("classifyAnswer", () => {
  const receipt = JSON.stringify({ id: "ch_1", reference: "a".repeat(64) });
  it("reads the guard's in-flight message as in flight, with its ref", () => {
    const text = inFlightMessage("A charge", "3f9a1c2b7d4e", "get_charge_status");
    expect(classifyAnswer({ isError: true, text, content: JSON.stringify(text) }, null)).toEqual({
      outcome: "in_flight",
      ref: "3f9a1c2b7d4e",
    });
  });
  it("reads an outcome-unknown answer as an error, not in flight", () => {
    const text = outcomeUnknownMessage("processor", "A charge", "3f9a1c2b7d4e", "get_charge_status", 5000);
    expect(classifyAnswer({ isError: true, text, content: JSON.stringify(text) }, null).outcome).toBe("error");
  });
  it("an answer identical to the execution is its replay; a different success is another execution", () => {
    expect(classifyAnswer({ isError: false, text: receipt, content: "A" }, null).outcome).toBe("executed");
    expect(classifyAnswer({ isError: false, text: receipt, content: "A" }, "A").outcome).toBe("replayed");
    expect(classifyAnswer({ isError: false, text: receipt, content: "B" }, "A").outcome).toBe("executed");
    expect(classifyAnswer({ thrown: "no answer within 30 s" }, "A").outcome).toBe("error");
  });
});

describe("reorderedArguments", () => {
  it("keeps the values, and sends neighbouring calls different key orders", () => {
    const orders = reorderedArguments({ card: "c_1", amount_cents: 5, currency: "usd" }, 5);
    expect(orders).toHaveLength(5);
    for (const { value } of orders) expect(value).toEqual({ card: "c_1", amount_cents: 5, currency: "usd" });
    for (let i = 1; i < orders.length; i++) expect(orders[i]!.keyOrder.join()).not.toBe(orders[i - 1]!.keyOrder.join());
    expect(orders.map((o) => JSON.stringify(o.value))[0]).toBe('{"card":"c_1","amount_cents":5,"currency":"usd"}');
  });
});

describe("decideVerdict", () => {
  const passed = (step: "answers" | "table" | "upstream") => ({
    step,
    result: "passed" as const,
    detail: `${step} ok`,
  });
  it("names the first side that failed", () => {
    const v = decideVerdict([
      { step: "answers", result: "inconclusive", detail: "two executions" },
      { step: "table", result: "failed", detail: "no row" },
      { step: "upstream", result: "failed", detail: "2 shipments" },
    ]);
    expect(v).toMatchObject({ verdict: "failed", step: "table", summary: "no row", hint: null });
  });
  it("is inconclusive, with the hint, when the in-flight branch was not exercised", () => {
    const v = decideVerdict([
      { step: "answers", result: "inconclusive", detail: "no repeat" },
      passed("table"),
      passed("upstream"),
    ]);
    expect(v).toMatchObject({ verdict: "inconclusive", step: "answers", hint: SLOW_UPSTREAM_HINT });
  });
  it("is verified when every side passed or the upstream had no adapter to ask", () => {
    const v = decideVerdict([
      passed("answers"),
      passed("table"),
      { step: "upstream", result: "skipped", detail: "none" },
    ]);
    expect(v).toMatchObject({ verdict: "verified", step: null });
  });
});

describe("verificationJunit", () => {
  it("one testsuite, a testcase per side, escaped text that parses back as written", () => {
    const nasty = `the carrier said <b>"2"</b> & 'more' ]]> \u0007bell`;
    const run: ToolVerificationResult = {
      id: "7",
      server: "shop",
      tool: "create_shipment",
      verdict: "failed",
      step: "table",
      summary: nasty,
      concurrency: 2,
      argumentsHash: "0".repeat(64),
      listingHash: "1".repeat(64),
      snapshotId: "3",
      startedAt: "2026-12-01T10:00:00.000Z",
      finishedAt: "2026-12-01T10:00:02.500Z",
      verifiedBy: "system:cli (ci)",
      evidence: {
        calls: [],
        checks: [
          { step: "answers", result: "inconclusive", detail: "none in flight" },
          { step: "table", result: "failed", detail: nasty },
          { step: "upstream", result: "passed", detail: "ok" },
        ],
        rows: [],
        upstream: null,
        hint: null,
      },
    };
    const xml = verificationJunit(run);
    expect(XMLValidator.validate(xml)).toBe(true);
    const { testsuite } = new XMLParser({ ignoreAttributes: false }).parse(xml) as {
      testsuite: {
        "@_tests": string;
        "@_failures": string;
        "@_skipped": string;
        "@_time": string;
        testcase: Record<string, { "@_message"?: string }>[];
      };
    };
    expect([testsuite["@_tests"], testsuite["@_failures"], testsuite["@_skipped"], testsuite["@_time"]]).toEqual([
      "3",
      "1",
      "1",
      "2.500",
    ]);
    expect(testsuite.testcase[1]!.failure!["@_message"]).toBe(nasty.replace("\u0007", ""));
    expect(testsuite.testcase[0]!.skipped!["@_message"]).toBe("inconclusive: none in flight");
  });
});

describe("judgeAnswers: a tool that refused every call", () => {
  const refusal =
    "MCP error -32602: Input validation error: Invalid arguments for tool charge_card: expected string, received undefined at card; expected number, received undefined at amount_cents";
  const call = (outcome: "error" | "executed", phase: "concurrent" | "sequential" = "concurrent") => ({
    phase,
    keyOrder: [],
    outcome,
    ref: null,
    isError: outcome === "error",
    text: outcome === "error" ? refusal : "{}",
    ms: 3,
    content: outcome === "error" ? null : "{}",
  });

  it("is no finding against the hint: inconclusive, with the refusal in full and what to do", () => {
    const answers = judgeAnswers({ calls: [call("error"), call("error")], sequentialSkipped: "not made" });
    expect(answers).toMatchObject({ result: "inconclusive", rejected: true });
    expect(answers.detail).toContain("executed none, so nothing was tested");
    expect(answers.detail).toContain("received undefined at amount_cents"); // not cut at 200 characters
    const v = decideVerdict(
      [
        { step: "answers", result: answers.result, detail: answers.detail },
        { step: "table", result: "skipped", detail: "not a finding" },
      ],
      { rejectedArguments: answers.rejected },
    );
    expect(v).toMatchObject({ verdict: "inconclusive", step: "answers", hint: REJECTED_ARGUMENTS_HINT });
  });

  it("an error beside an execution is still a failure of the repeat", () => {
    const answers = judgeAnswers({ calls: [call("executed"), call("error")], sequentialSkipped: null });
    expect(answers).toMatchObject({ result: "failed", rejected: false });
  });
});

// The table side without assuming an optional column or a new key (issue #27): the rows a run is judged by
// are found by what every writer writes (the ref its answers named, the response its calls received), and a
// run answered from a row that existed before it began tested nothing.
describe("the table side: rows found by ref and response, earlier rows", () => {
  const KEY = "3f9a1c2b7d4e" + "a".repeat(52);
  const OTHER = "9b8c7d6e5f40" + "b".repeat(52);
  const receipt = { id: "ch_1", amount_cents: 500 };
  const content = canonicalOf(receipt);
  const from = new Date("2026-12-01T19:07:30.000Z");
  const row = (over: Partial<TableRow> = {}): TableRow => ({
    key: KEY,
    tool: null,
    status: "completed",
    response: receipt,
    createdAt: new Date("2026-12-01T19:07:30.200Z"),
    ...over,
  });
  const call = (outcome: AnsweredCall["outcome"], over: Partial<AnsweredCall> = {}): AnsweredCall => ({
    outcome,
    ref: outcome === "in_flight" ? KEY.slice(0, 12) : null,
    content: outcome === "in_flight" ? JSON.stringify("in progress") : content,
    ...over,
  });
  const defaultWindow = keyWindowOf({ tools: {} }, "charge_card");
  const judge = (
    rows: TableRow[],
    options: {
      ref?: string | null;
      calls?: AnsweredCall[];
      earlier?: TableRow | null;
      keyWindow?: KeyWindow;
    } = {},
  ) => {
    const ref = options.ref === undefined ? KEY.slice(0, 12) : options.ref;
    const calls = options.calls ?? [call("executed"), call("in_flight"), call("replayed")];
    const attribution = attributeRows(rows, {
      tool: "charge_card",
      from,
      refs: ref ? [ref] : [],
      contents: calls.flatMap((c) => (c.content ? [c.content] : [])),
    });
    return judgeTable({
      tool: "charge_card",
      attribution,
      earlier: options.earlier === undefined ? attribution.earlierByRef : options.earlier,
      truncated: false,
      expected: { ref, content },
      calls,
      keyWindow: options.keyWindow ?? defaultWindow,
      from,
    });
  };

  it("a writer that runs the reference statements verbatim (no tool column) passes by the ref its answers named", () => {
    const finding = judge([row()]);
    expect(finding).toMatchObject({ result: "passed", key: KEY, earlier: null });
    expect(finding.detail).toContain("no tool recorded; named by the ref the in-flight answers gave");
    expect(finding.rows).toEqual([
      { key: KEY, status: "completed", createdAt: "2026-12-01T19:07:30.200Z", tool: null },
    ]);
  });

  it("with no ref named (the repeats were replays), a row recording no tool is tied by the response the calls received", () => {
    const calls = [call("executed"), call("replayed"), call("replayed")];
    const finding = judge([row(), row({ key: OTHER, response: { id: "ch_other" } })], { ref: null, calls });
    expect(finding).toMatchObject({ result: "passed", key: KEY });
    expect(finding.detail).toContain("tied to the run by the response its calls received");
  });

  it("rows recording no tool that nothing ties to the run are other calls': no row is still a failure, and says so", () => {
    const finding = judge([row({ key: OTHER, response: { id: "ch_other" } })], {
      ref: null,
      calls: [call("executed"), call("executed", { content: canonicalOf({ id: "ch_2" }) })],
    });
    expect(finding.result).toBe("failed");
    expect(finding.detail).toMatch(/^the table holds no row for charge_card written during the run/);
    expect(finding.detail).toContain("1 row recording no tool was written meanwhile");
    expect(finding.detail).toMatch(/the tool claimed no idempotency key before its side effect$/);
  });

  it("two rows recording no tool with the same response are not told apart: inconclusive, never failed", () => {
    const finding = judge([row(), row({ key: OTHER })], { ref: null, calls: [call("executed"), call("replayed")] });
    expect(finding.result).toBe("inconclusive");
    expect(finding.detail).toContain("cannot be told from another call's with the same answer");
  });

  it("two rows recording no tool, each holding another execution's answer, are two claims of one call", () => {
    const second = { id: "ch_2", amount_cents: 500 };
    const finding = judge([row(), row({ key: OTHER, response: second })], {
      ref: null,
      calls: [call("executed"), call("executed", { content: canonicalOf(second) })],
    });
    expect(finding).toMatchObject({ result: "failed", cause: "two_keys" });
    expect(finding.detail).toContain(
      "; 2 recording no tool, tied to the run by the responses its calls received), not 1",
    );
  });

  it("every call replayed a completed row written before the run: inconclusive, naming the row and its bucket's end", () => {
    const earlier = row({ createdAt: new Date("2026-12-01T19:05:12.345Z") });
    const finding = judge([], { ref: null, calls: [call("executed"), call("replayed"), call("replayed")], earlier });
    expect(finding.result).toBe("inconclusive");
    // (floor(created_at_unix / 900) + 1) * 900: 19:05:12 lies in the bucket 19:00:00–19:15:00.
    expect(finding.earlier).toMatchObject({
      key: KEY,
      status: "completed",
      foundBy: "response",
      keyHoldsUntil: "2026-12-01T19:15:00.000Z",
      bucketStart: "2026-12-01T19:00:00.000Z",
    });
    expect(finding.earlier!.window).toMatch(
      /^the default 900 s bucket \(idem.config.json sets no window for charge_card/,
    );
    expect(finding.detail).toContain("row 3f9a1c2b7d4e (completed, no tool recorded");
    expect(finding.detail).toContain("until 2026-12-01 19:15:00 UTC");
    expect(finding.key).toBe(KEY);
  });

  it("every call told in flight under an earlier claim (named by its ref): inconclusive, not 'none executed'", () => {
    const earlier = row({ status: "in_progress", response: null, createdAt: new Date("2026-12-01T19:01:00Z") });
    const finding = judge([earlier], { calls: [call("in_flight"), call("in_flight"), call("in_flight")] });
    expect(finding).toMatchObject({ result: "inconclusive", earlier: { foundBy: "ref", status: "in_progress" } });
  });

  it("an earlier row that answered only some calls while another executed is no excuse: no row is a failure", () => {
    const earlier = row({ createdAt: new Date("2026-12-01T19:05:00Z") });
    const fresh = canonicalOf({ id: "ch_new" });
    const finding = judge([], { ref: null, calls: [call("executed", { content: fresh }), call("replayed")], earlier });
    expect(finding.result).toBe("failed");
    expect(finding.detail).toContain(
      "row 3f9a1c2b7d4e, written before the run, answered some calls, but others executed",
    );
  });

  it("the configured window and a business key set until when the key holds", () => {
    const earlier = row({ createdAt: new Date("2026-12-01T19:05:12Z") });
    const calls = [call("executed"), call("replayed")];
    const tenMinutes = keyWindowOf({ tools: { charge_card: { window: 600_000 } } }, "charge_card");
    expect(tenMinutes).toEqual({ kind: "bucket", seconds: 600, source: "config" });
    expect(judge([], { ref: null, calls, earlier, keyWindow: tenMinutes }).earlier).toMatchObject({
      keyHoldsUntil: "2026-12-01T19:10:00.000Z",
      window: "its 600 s bucket (idem.config.json: tools.charge_card.window)",
    });
    const business = keyWindowOf({ tools: { charge_card: { businessKey: true } } }, "charge_card");
    expect(judge([], { ref: null, calls, earlier, keyWindow: business }).earlier).toMatchObject({
      keyHoldsUntil: null,
      bucketStart: null,
    });
    // An older row the default bucket says has expired, yet it answered: the writer's key is not that bucket.
    const old = row({ createdAt: new Date("2026-12-01T17:00:00Z") });
    const stale = judge([], { ref: null, calls, earlier: old }).earlier!;
    expect(stale.keyHoldsUntil).toBeNull();
    expect(stale.window).toContain("the writer keys charge_card by a business key or a longer window");
  });

  it("bucket arithmetic: whole seconds first, then the floor division; an edge inside the run is found", () => {
    expect(bucketEnd(new Date("2026-12-01T19:14:59.999Z"), 900).toISOString()).toBe("2026-12-01T19:15:00.000Z");
    expect(bucketEnd(new Date("2026-12-01T19:15:00.000Z"), 900).toISOString()).toBe("2026-12-01T19:30:00.000Z");
    expect(bucketEdgeWithin(new Date("2026-12-01T19:14:58Z"), new Date("2026-12-01T19:15:01Z"), 900)).toEqual(
      new Date("2026-12-01T19:15:00Z"),
    );
    expect(bucketEdgeWithin(new Date("2026-12-01T19:10:00Z"), new Date("2026-12-01T19:10:03Z"), 900)).toBeNull();
  });
});

describe("settleFindings", () => {
  const answers = (over: Partial<AnswersFinding> = {}): AnswersFinding => ({
    step: "answers",
    result: "inconclusive",
    detail: "the first call finished before the repeats arrived",
    ref: null,
    refs: [],
    expectedContent: null,
    rejected: false,
    ...over,
  });
  const table = (over: Partial<TableFinding> = {}): TableFinding => ({
    step: "table",
    result: "passed",
    detail: "one row",
    rows: [],
    key: null,
    earlier: null,
    ...over,
  });
  const upstream = (sideEffects: number | null, over: Partial<UpstreamFinding> = {}): UpstreamFinding => ({
    step: "upstream",
    result: "inconclusive",
    detail: "the processor knows reference 3f9a… but counted no side effect during the run",
    upstream: { adapter: "http", reference: null, sideEffects, detail: "" },
    ...over,
  });
  const earlier = {
    key: "3f9a1c2b7d4e" + "a".repeat(52),
    status: "completed",
    createdAt: "2026-12-01T19:05:12.345Z",
    tool: null,
    foundBy: "response" as const,
    keyHoldsUntil: "2026-12-01T19:15:00.000Z",
    bucketStart: "2026-12-01T19:00:00.000Z",
    window:
      "the default 900 s bucket (idem.config.json sets no window for charge_card, so the reference text's is assumed)",
  };
  const window = keyWindowOf({ tools: {} }, "charge_card");
  const base = { tool: "charge_card", keyWindow: window, edge: null };

  it("a run answered from an earlier row leads with it: inconclusive at the table, the ref, the bucket's end, the fix", () => {
    const settled = settleFindings({
      ...base,
      answers: answers(),
      table: table({ result: "inconclusive", detail: "no row…", earlier }),
      upstream: upstream(0),
    });
    expect(settled.checks.map((c) => `${c.step}:${c.result}`)).toEqual([
      "answers:inconclusive",
      "table:inconclusive",
      "upstream:skipped",
    ]);
    const v = decideVerdict(settled.checks, { lead: settled.lead });
    expect(v).toMatchObject({ verdict: "inconclusive", step: "table" });
    expect(v.summary).toMatch(/^every call was answered from row 3f9a1c2b7d4e, written at 2026-12-01 19:05:12 UTC/);
    expect(v.summary).toContain("nothing executed, so nothing was tested");
    expect(v.summary).toContain("until 2026-12-01 19:15:00 UTC, the end of the default 900 s bucket");
    expect(v.hint).toBe(
      "Run it again with other arguments (a call not made since 2026-12-01 19:00:00 UTC: another amount, another order id), or with these after 2026-12-01 19:15:00 UTC, when they derive a new key. This run changes no verdict.",
    );
  });

  it("a side effect counted behind the replays is still a failure", () => {
    const settled = settleFindings({
      ...base,
      answers: answers(),
      table: table({ result: "inconclusive", earlier }),
      upstream: upstream(1),
    });
    const v = decideVerdict(settled.checks, { lead: settled.lead });
    expect(v).toMatchObject({ verdict: "failed", step: "upstream" });
    expect(v.summary).toMatch(/^the upstream counted a side effect during the run although every call was answered/);
  });

  it("a stuck earlier claim: the fix names the Stuck page; a business key: other arguments only", () => {
    const stuck = settleFindings({
      ...base,
      answers: answers({ result: "failed", detail: "none of the 2 calls at once executed" }),
      table: table({ result: "inconclusive", earlier: { ...earlier, status: "in_progress" } }),
      upstream: upstream(null),
    });
    expect(stuck.checks[0]!.result).toBe("inconclusive");
    expect(stuck.lead!.summary).toMatch(
      /^every call was told the call is in flight under row 3f9a1c2b7d4e, in_progress since/,
    );
    expect(stuck.lead!.hint).toContain("resolve it on the Stuck page (ref 3f9a1c2b7d4e)");
    const business = settleFindings({
      ...base,
      answers: answers(),
      table: table({ result: "inconclusive", earlier: { ...earlier, keyHoldsUntil: null, bucketStart: null } }),
      upstream: upstream(0),
    });
    expect(business.lead!.hint).toMatch(/^Run it again with other arguments \(a value of charge_card's business key/);
  });

  it("a bucket edge inside the run: failures two keys explain are inconclusive; any other failure stands", () => {
    const edge = new Date("2026-12-01T19:15:00Z");
    const split = settleFindings({
      ...base,
      edge,
      answers: answers({ result: "failed", detail: "the sequential repeat executed again", cause: "two_keys" }),
      table: table({ result: "failed", detail: "2 rows", cause: "two_keys" }),
      upstream: upstream(2, { result: "failed", detail: "2 side effects", cause: "two_keys" }),
    });
    const v = decideVerdict(split.checks, { lead: split.lead });
    expect(v).toMatchObject({ verdict: "inconclusive", step: "answers" });
    expect(v.summary).toContain("crossed the end of a 900 s key bucket at 2026-12-01 19:15:00 UTC");
    const stands = settleFindings({
      ...base,
      edge,
      answers: answers({ result: "failed", detail: "the sequential repeat executed again", cause: "two_keys" }),
      table: table({ result: "failed", detail: "the row is in_progress" }),
      upstream: upstream(2),
    });
    expect(decideVerdict(stands.checks, { lead: stands.lead }).verdict).toBe("failed");
    // Without an edge, the same findings are the failures they look like.
    const plain = settleFindings({
      ...base,
      answers: answers({ result: "failed", detail: "x", cause: "two_keys" }),
      table: table(),
      upstream: upstream(1),
    });
    expect(decideVerdict(plain.checks, { lead: plain.lead }).verdict).toBe("failed");
  });
});
