import { XMLBuilder } from "fast-xml-parser";
import type { ToolVerificationResult } from "@/lib/annotations/tool-verification-types";

// XML 1.0 cannot carry these even escaped (a tool's answer may hold anything): they are dropped.
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const clean = (text: string) => text.replace(NOT_XML, "");

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  format: true,
  suppressEmptyNode: true,
});

/**
 * The run as JUnit XML for a CI's test report: one testsuite, one testcase per side the run reads
 * (answers, table, upstream). failed → <failure>, inconclusive or skipped → <skipped> with the reason;
 * the summary and the hint go in <system-out>. fast-xml-parser escapes text and attributes.
 */
export function verificationJunit(verification: ToolVerificationResult): string {
  const { server, tool, evidence } = verification;
  const seconds = (Date.parse(verification.finishedAt) - Date.parse(verification.startedAt)) / 1000;
  const classname = `verify-tool.${server}.${tool}`;
  const testcases = evidence.checks.map((check) => ({
    "@_name": `${tool}: ${check.step}`,
    "@_classname": classname,
    ...(check.result === "failed"
      ? { failure: { "@_message": clean(check.detail), "@_type": check.step, "#text": clean(check.detail) } }
      : check.result === "passed"
        ? { "system-out": clean(check.detail) }
        : { skipped: { "@_message": clean(`${check.result}: ${check.detail}`) } }),
  }));
  const out = [`verdict: ${verification.verdict}`, verification.summary, evidence.hint ?? ""]
    .filter(Boolean)
    .join("\n");
  const document = {
    testsuite: {
      "@_name": `verify-tool ${server}/${tool}`,
      "@_tests": evidence.checks.length,
      "@_failures": evidence.checks.filter((c) => c.result === "failed").length,
      "@_errors": 0,
      "@_skipped": evidence.checks.filter((c) => c.result === "inconclusive" || c.result === "skipped").length,
      "@_time": seconds.toFixed(3),
      "@_timestamp": verification.startedAt,
      properties: {
        property: [
          { "@_name": "verdict", "@_value": verification.verdict },
          { "@_name": "step", "@_value": verification.step ?? "" },
          { "@_name": "verificationId", "@_value": verification.id },
          { "@_name": "argumentsHash", "@_value": verification.argumentsHash },
          { "@_name": "concurrency", "@_value": verification.concurrency },
        ],
      },
      testcase: testcases,
      "system-out": clean(out),
    },
  };
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build(document)}`;
}
