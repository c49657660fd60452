import { quote } from "shell-quote";
import { beforeAll, describe, expect, it } from "vitest";
import { bundledScript } from "../helpers/bundled-script";
import { awayFromBucketEdge } from "../helpers/mid-bucket-clock";
import { cliChild, crashAtEveryStep, runChild, type ChildCommand } from "./crash-run";
import { useCrashDatabase, useCrashProcessor } from "./crash-setup";
import type { ClaimsOf, Watched } from "./invariant";

// `idem verify-tool --stdio` against the guarded test shop (tests/fixtures/verify-shop-server.ts, in
// the CLI's process group, so the kill takes it too), killed after its commit and during each
// question to the processor: the stored run and its tool.verify row come together or not at all,
// and running it again charges nobody twice (the same arguments replay the first call's outcome).
const VERIFICATION: Watched = { table: "tool_verification", id: "id::text", fingerprint: "verdict" };
const verifyClaims: ClaimsOf = (row) =>
  row.action === "tool.verify"
    ? [{ ids: [`tool_verification:${(row.after as { verificationId: string }).verificationId}`] }]
    : [];

describe("crash: idem verify-tool killed at its commit and its processor calls", () => {
  const database = useCrashDatabase();
  const upstream = useCrashProcessor("verify");
  // The repeats must find the first call still running, or the run is inconclusive (exit 3), not verified:
  // a slow processor makes that certain, as verify-tool's own hint says (seen once in CI: 72 ms was too quick).
  beforeAll(() => void upstream.processor.setFaults({ latencyMs: 1_500 }));
  let round = 0;
  let chargesBefore = 0;
  const command = (): ChildCommand => {
    const server = quote([
      process.execPath,
      bundledScript("tests/fixtures/verify-shop-server.ts"),
      "--mode",
      "guarded",
      "--database-url",
      database.url,
      "--processor",
      upstream.processor.url,
    ]);
    const args = JSON.stringify({ card: "c_4242", amount_cents: 5_000 + round });
    return cliChild(["verify-tool", "--tool", "charge_card", "--stdio", server, "--args", args], {
      DATABASE_URL: database.url,
      IDEM_CONFIG: upstream.configFile,
    });
  };

  it("stores the run with its one audit row, or neither; the same command again charges nobody twice", async () => {
    const { db } = database;
    const { processor } = upstream;
    const report = await crashAtEveryStep({
      db,
      child: command,
      kinds: ["after-commit", "during-call"],
      watched: [VERIFICATION],
      claimsOf: verifyClaims,
      async prepare() {
        // The killed run and the next one must derive one key: a round that straddled the wall clock's bucket end
        // would charge twice, rightly (CI's run did, at 23:15:00).
        await awayFromBucketEdge();
        round += 1;
        chargesBefore = processor.stats().sideEffects;
      },
      async nextRun() {
        // The same arguments replay the first call's stored outcome: inconclusive (3), never failed (1).
        const again = await runChild(command(), null);
        expect([0, 3], again.stdout + again.stderr).toContain(again.code);
      },
      async expectDone() {
        expect(await db.toolVerification.count()).toBeGreaterThanOrEqual(round);
        expect(processor.stats().sideEffects - chargesBefore, "one charge per arguments, however often verified").toBe(
          1,
        );
      },
    });
    // the stored run's transaction; the processor's counts before and after, and the reference's answer.
    expect(report.points).toEqual(["after-commit:1", "during-call:1", "during-call:2", "during-call:3"]);
  }, 300_000);
});
