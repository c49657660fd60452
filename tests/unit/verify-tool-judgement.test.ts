import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import type { ToolVerificationResult } from "@/lib/annotations/tool-verification-types";
import { classifyAnswer } from "@/lib/annotations/verify-tool/classify-answer";
import { reorderedArguments } from "@/lib/annotations/verify-tool/key-orders";
import { judgeAnswers } from "@/lib/annotations/verify-tool/judge-answers";
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
