// `npm test`: every test, as three vitest runs side by side — the unit, node and pgbouncer projects; the
// browser project (one shared console, one file at a time); the own-console project (browser files that start
// consoles of their own, much of it waiting on faults and deadlines), then the node files that take longest
// (LONG_NODE_FILES), which the node side would otherwise run last of all, then the browser side's longest file
// (LATE_BROWSER_FILES); after the browser project, two more node files (AFTER_BROWSER_NODE_FILES). One vitest
// run would give these 2 cores one worker and run the groups one after the other; the runs share nothing but the
// PostgreSQL server (each node run makes its own database).
// With arguments (`npm test -- tests/unit/x.test.ts`) it is one plain `vitest run` with them.
// The one shared thing is the streaming replica: the node file that pauses its replay runs after both
// sides, so it and the replica-lag browser file (own-console) never wait on each other's paused sections.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const vitest = path.resolve("node_modules/vitest/vitest.mjs");
/** Pauses the test replica's replay (tests/helpers/replica.ts), as the browser's replica-lag file does. */
const REPLICA_FILE = "tests/integration/read-replica.test.ts";
/**
 * The node side's longest files (docs/test-time.md, "Stops 43, 54 and 56"): each brings its own servers and database,
 * so they run after the own-console files, whose run ends minutes before the node side's.
 */
const LONG_NODE_FILES = [
  "tests/cli/bench-writers.test.ts",
  "tests/integration/verify-tool.test.ts",
  "tests/cli/bad-input-cli.test.ts",
  "tests/integration/migrate.test.ts",
  "tests/cli/bench.test.ts",
];
/**
 * The node side's longest files left (docs/test-time.md, "Stops 45, 51, 54 and 57"): they run after the browser side,
 * whose run ended two minutes before the node side's.
 */
const AFTER_BROWSER_NODE_FILES = [
  "tests/cli/verify-tool-cli.test.ts",
  "tests/cli/cli.test.ts",
  "tests/crash/verify-tool.test.ts",
  "tests/cli/guard-tarball.test.ts",
  "tests/crash/bulk-apply.test.ts",
];
/**
 * The browser side's longest file, the accessibility sweep (~220 s, docs/test-time.md "Stop 44"): it runs
 * last on the third chain, on a shared console of its own, where that chain had minutes to spare.
 */
const LATE_BROWSER_FILES = ["tests/browser/accessibility.test.ts"];
const extra = process.argv.slice(2);
/** The summary reporter's prefix for a failure's first lines (tests/setup/plain-summary-reporter.ts); above the
 * top-level await that reads it. */
const REASON_PREFIX = "why> ";

if (extra.length > 0) {
  const child = spawn(process.execPath, [vitest, "run", ...extra], { stdio: "inherit" });
  child.on("close", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const browserLog = path.resolve("test-results/browser-tests.log");
  mkdirSync(path.dirname(browserLog), { recursive: true });
  console.log(`browser tests run beside the others; their output follows at the end (and in ${browserLog})`);
  const [node, [browser, afterBrowser], [ownConsole, longNode, lateBrowser]] = await Promise.all([
    run(["--project", "unit", "--project", "node", "--project", "pgbouncer"], true, {
      IDEM_TEST_EXCLUDE: [REPLICA_FILE, ...LONG_NODE_FILES, ...AFTER_BROWSER_NODE_FILES].join(","),
    }),
    run(["--project", "browser"], false, { IDEM_TEST_EXCLUDE: LATE_BROWSER_FILES.join(",") }).then(async (browser) => [
      browser,
      await run(["--project", "node", ...AFTER_BROWSER_NODE_FILES], false),
    ]),
    run(["--project", "own-console"], false).then(async (own) => [
      own,
      await run(["--project", "node", ...LONG_NODE_FILES], false),
      await run(["--project", "browser", ...LATE_BROWSER_FILES], false),
    ]),
  ]);
  writeFileSync(browserLog, browser.output);
  process.stdout.write(`\n===== browser tests =====\n${browser.output}`);
  process.stdout.write(`\n===== the node files after those =====\n${afterBrowser.output}`);
  process.stdout.write(`\n===== browser tests with consoles of their own =====\n${ownConsole.output}`);
  process.stdout.write(`\n===== the longest node files, after those =====\n${longNode.output}`);
  process.stdout.write(`\n===== the longest browser file, after those =====\n${lateBrowser.output}`);
  process.stdout.write(`\n===== ${REPLICA_FILE}, after all =====\n`);
  const replica = await run(["--project", "node", REPLICA_FILE], true);
  const sides = [node, browser, afterBrowser, ownConsole, longNode, lateBrowser, replica];
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const side of sides) {
    const summary = /^Summary: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(side.output);
    // A side that ended without its summary (a crash in a global setup) counts as one failure.
    if (!summary) total.failed += 1;
    else {
      total.passed += Number(summary[1]);
      total.failed += Number(summary[2]);
      total.skipped += Number(summary[3]);
    }
  }
  const failed = sides.some((side) => side.code !== 0);
  // The node side streams first; a CI log that keeps only its tail would otherwise not name its failures.
  const failures = sides.flatMap((side) => failedLines(side.output));
  if (failures.length > 0) process.stdout.write(`\nFailed:\n${failures.join("\n")}\n`);
  if (failed && total.failed === 0) total.failed = 1; // a non-zero exit is a failure even with every test green
  process.stdout.write(`\nSummary: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
  process.exit(failed ? 1 : 0);
}

/** One vitest run; `live` streams its output as it comes, otherwise it is kept for the end. */
function run(args, live, env = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, "run", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let output = "";
    const take = (stream) => (chunk) => {
      output += chunk.toString();
      if (live) stream.write(chunk);
    };
    child.stdout.on("data", take(process.stdout));
    child.stderr.on("data", take(process.stderr));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

/** vitest's lines for failed files and tests (FAIL …, × …), then each failure's first lines, without colour codes. */
function failedLines(output) {
  const lines = output.replace(/\x1b\[[0-9;]*m/g, "").split("\n");
  const names = lines.filter((line) => /^\s*(FAIL|×)\s/.test(line)).map((line) => line.trim());
  const reasons = lines
    .filter((line) => line.startsWith(REASON_PREFIX))
    .map((line) => line.slice(REASON_PREFIX.length));
  return [...new Set(names), ...reasons];
}
