import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

// The shipped alert rules, checked and unit-tested by Prometheus's own promtool (Debian's `prometheus`
// package, installed by .ci/run): a rule that no longer parses, or an alert that no longer fires on
// its series (or fires where it must not), fails here.
function promtool(...args: string[]): string {
  try {
    return execFileSync("promtool", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(" ")} failed:\n${failed.stdout ?? ""}${failed.stderr ?? failed.message}`);
  }
}

describe("deploy/prometheus/idem-alerts.yml (promtool)", () => {
  it("parses: promtool check rules", () => {
    expect(promtool("check", "rules", "deploy/prometheus/idem-alerts.yml")).toContain("SUCCESS: 9 rules found");
  });

  // About 7 CPU seconds of promtool: beside the lint processes on a busy machine, more than the default 30 s.
  it("every alert fires on its series and stays quiet on the others: promtool test rules", { timeout: 120_000 }, () => {
    expect(promtool("test", "rules", "deploy/prometheus/idem-alerts.test.yml")).toContain("SUCCESS");
  });

  it("the unit tests cover every alert the file defines", async () => {
    const { readFileSync } = await import("node:fs");
    const rules = readFileSync("deploy/prometheus/idem-alerts.yml", "utf8");
    const tests = readFileSync("deploy/prometheus/idem-alerts.test.yml", "utf8");
    const alerts = [...rules.matchAll(/^\s+- alert: (\w+)/gm)].map((m) => m[1]!);
    expect(alerts).toHaveLength(9);
    const untested = alerts.filter((name) => !new RegExp(`alertname: ${name}\\n[\\s\\S]*?exp_labels`).test(tests));
    expect(untested, "alerts without a test that expects them to fire").toEqual([]);
  });
});
