// `npm test`: every test, as two vitest runs side by side — the browser project in one, the node and
// pgbouncer projects in the other. One vitest run would give these 2 cores one worker and run the groups
// one after the other; the two sides share nothing but the PostgreSQL server (each has its own database).
// With arguments (`npm test -- tests/unit/x.test.ts`) it is one plain `vitest run` with them.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

const vitest = path.resolve("node_modules/vitest/vitest.mjs");
const extra = process.argv.slice(2);

if (extra.length > 0) {
  const child = spawn(process.execPath, [vitest, "run", ...extra], { stdio: "inherit" });
  child.on("close", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
} else {
  const browserLog = path.resolve("test-results/browser-tests.log");
  mkdirSync(path.dirname(browserLog), { recursive: true });
  console.log(`browser tests run beside the others; their output follows at the end (and in ${browserLog})`);
  const [node, browser] = await Promise.all([
    run(["--project", "node", "--project", "pgbouncer"], true),
    run(["--project", "browser"], false),
  ]);
  writeFileSync(browserLog, browser.output);
  process.stdout.write(`\n===== browser tests =====\n${browser.output}`);
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const side of [node, browser]) {
    const summary = /^Summary: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(side.output);
    // A side that ended without its summary (a crash in a global setup) counts as one failure.
    if (!summary) total.failed += 1;
    else {
      total.passed += Number(summary[1]);
      total.failed += Number(summary[2]);
      total.skipped += Number(summary[3]);
    }
  }
  const failed = node.code !== 0 || browser.code !== 0;
  if (failed && total.failed === 0) total.failed = 1; // a non-zero exit is a failure even with every test green
  process.stdout.write(`\nSummary: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped\n`);
  process.exit(failed ? 1 : 0);
}

/** One vitest run; `live` streams its output as it comes, otherwise it is kept for the end. */
function run(args, live) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, "run", ...args], { stdio: ["ignore", "pipe", "pipe"] });
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
