import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

/** How much of each failure's message the summary keeps: enough for a CI log that keeps only its tail. */
const REASON_LINES = 6;
// Long enough for an assertion that carries its report as the message (bench-writers' placement check).
const REASON_LINE_CHARS = 2_000;
/** scripts/run-tests.mjs gathers the lines with this prefix from every side into its "Failed:" list. */
export const REASON_PREFIX = "why> ";

/**
 * Ends the run with the plain "N passed, N failed, N skipped" line CI reads, after the first lines of
 * each failure's message (a CI log that keeps only its tail otherwise names the test but not why).
 */
export class PlainSummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<{ message?: string; name?: string }> = [],
  ): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const reasons: string[] = [];
    for (const testModule of testModules) {
      const file = path.relative(process.cwd(), testModule.moduleId);
      for (const test of testModule.children.allTests()) {
        const result = test.result();
        if (result.state === "passed") passed += 1;
        else if (result.state === "failed") {
          failed += 1;
          reasons.push(...reasonLines(`${file} > ${test.fullName}`, result.errors ?? []));
        } else skipped += 1;
      }
      // A hook that threw (beforeAll) fails its suite and leaves its tests skipped: it counts as one failure.
      for (const suite of [testModule, ...testModule.children.allSuites()]) {
        const errors = suite.errors();
        if (errors.length === 0) continue;
        failed += 1;
        reasons.push(...reasonLines(suite.type === "module" ? file : `${file} > ${suite.fullName}`, errors));
      }
    }
    // Errors outside any test (a rejection nobody awaited) fail the run without failing a test.
    if (unhandledErrors.length > 0) reasons.push(...reasonLines("unhandled errors", unhandledErrors));
    if (reasons.length > 0) process.stdout.write(`\n${reasons.join("\n")}\n`);
    process.stdout.write(`\nSummary: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function reasonLines(name: string, errors: ReadonlyArray<{ message?: string; name?: string }>): string[] {
  const lines = errors.flatMap((error) =>
    `${error.name ?? "Error"}: ${error.message ?? "(no message)"}`.split("\n").slice(0, REASON_LINES),
  );
  return [name, ...lines.map((line) => `  ${line}`)].map(
    (line) => `${REASON_PREFIX}${line.slice(0, REASON_LINE_CHARS)}`,
  );
}
