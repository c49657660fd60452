import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import pg from "pg";
import { quote } from "shell-quote";
import { afterAll, beforeEach, describe, expect, inject, it } from "vitest";
import { startDemoWorld } from "@/tools/demo/demo-world";
import { bundledScript } from "../helpers/bundled-script";
import { runCli } from "../helpers/run-cli";

// verify-tool as a server's CI runs it: `--stdio "<command>"` against the test server of
// tests/fixtures/verify-shop-server.ts (the demo shop over stdio, writing to this database and
// charging the real demo processor), the exit code as the gate and a JUnit file as the report.
const url = inject("databaseUrl");
const pool = new pg.Pool({ connectionString: url, max: 4 });
const world = await startDemoWorld({ db: pool });
const dir = mkdtempSync(path.join(tmpdir(), "idem-verify-cli-"));
const configFile = path.join(dir, "idem.config.json");
writeFileSync(
  configFile,
  JSON.stringify({
    ...world.config,
    mcpServers: [
      { ...world.config.mcpServers[0], verify: true },
      { name: "shop-production", transport: "http", url: world.mcp.url },
    ],
  }),
);
const run = randomBytes(3).toString("hex");
let amount = 3000;
const args = () => JSON.stringify({ card: "c_4242", amount_cents: (amount += 1) });
const stdio = (mode: string) =>
  quote([
    process.execPath,
    bundledScript("tests/fixtures/verify-shop-server.ts"),
    "--mode",
    mode,
    "--database-url",
    url,
    "--processor",
    world.processor.url,
  ]);
// The reference writer (the reference statements verbatim, no tool or subject column) under a tenant of this run's
// own, so the README's own arguments derive a key no other test made.
const REFERENCE_TENANT = `refcli-${run}`;
const referenceWriter = quote([
  process.execPath,
  bundledScript("tests/fixtures/reference-writer-server.ts"),
  "--database-url",
  url,
  "--processor",
  world.processor.url,
  "--tenant",
  REFERENCE_TENANT,
]);
const README_ARGS = '{"card":"c_4242","amount_cents":500}';
// The CLI's own environment has no DATABASE_URL: --database-url is the one that counts.
const verifyTool = (extra: string[]) =>
  runCli(["verify-tool", "--tool", "charge_card", ...extra], { IDEM_CONFIG: configFile, DATABASE_URL: undefined });

type Suite = {
  testsuite: {
    "@_tests": string;
    "@_failures": string;
    "@_skipped": string;
    testcase: { "@_name": string; failure?: { "@_message": string }; skipped?: { "@_message": string } }[];
  };
};
function readJunit(file: string): Suite {
  const xml = readFileSync(file, "utf8");
  expect(XMLValidator.validate(xml)).toBe(true);
  return new XMLParser({ ignoreAttributes: false }).parse(xml) as Suite;
}

/** verify-tool --stdio against the test server in `mode`, with a JUnit file: the CI form. */
async function verifyStdio(mode: string, extra: string[] = []) {
  const junit = path.join(dir, `${mode}-${run}.xml`);
  const result = await verifyTool([
    "--stdio",
    stdio(mode),
    ...extra,
    "--args",
    args(),
    "--database-url",
    url,
    "--junit",
    junit,
  ]);
  return { result, junit };
}

describe("npm run idem -- verify-tool", () => {
  afterAll(async () => {
    await world.stop();
    await pool.query(`DELETE FROM idempotency WHERE tenant = $1`, [REFERENCE_TENANT]);
    await pool.end();
  });
  beforeEach(() => {
    world.processor.reset();
    world.processor.setFaults({ latencyMs: 1500 });
  });

  it(
    "--stdio against a guarded server: exit 0, a JUnit file with three passing testcases, the processor charged once",
    { timeout: 90_000 },
    async () => {
      const { result, junit } = await verifyStdio("guarded");
      expect(result.code, result.stderr + result.stdout).toBe(0);
      expect(result.stdout).toMatch(/stdio\/charge_card: VERIFIED/);
      expect(world.processor.stats().sideEffects).toBe(1);
      const suite = readJunit(junit).testsuite;
      expect(suite["@_tests"]).toBe("3");
      expect(suite["@_failures"]).toBe("0");
      expect(suite.testcase.map((t) => t["@_name"])).toEqual([
        "charge_card: answers",
        "charge_card: table",
        "charge_card: upstream",
      ]);
      expect(suite.testcase.every((t) => !t.failure && !t.skipped)).toBe(true);
    },
  );

  it(
    "--stdio against a handler that charges while answering in progress: exit 1, the upstream testcase fails",
    { timeout: 90_000 },
    async () => {
      const { result, junit } = await verifyStdio("charges-twice", ["--server", "ci-shop"]);
      expect(result.code, result.stderr + result.stdout).toBe(1);
      expect(result.stdout).toMatch(/ci-shop\/charge_card: FAILED at upstream/);
      expect(world.processor.stats().sideEffects).toBe(2);
      const suite = readJunit(junit).testsuite;
      expect(suite["@_failures"]).toBe("1");
      const upstream = suite.testcase.find((t) => t["@_name"] === "charge_card: upstream")!;
      expect(upstream.failure?.["@_message"]).toMatch(/performed 2 side effects/);
    },
  );

  it(
    "--stdio against a one-at-a-time server with a fast upstream: exit 3, the answers testcase skipped with the reason",
    { timeout: 90_000 },
    async () => {
      world.processor.setFaults({ latencyMs: 0 });
      const { result, junit } = await verifyStdio("one-at-a-time");
      expect(result.code, result.stderr + result.stdout).toBe(3);
      expect(result.stdout).toMatch(/INCONCLUSIVE at answers/);
      expect(result.stdout).toMatch(/hint: Slow the upstream/);
      const suite = readJunit(junit).testsuite;
      expect(suite["@_skipped"]).toBe("1");
      const answers = suite.testcase.find((t) => t["@_name"] === "charge_card: answers")!;
      expect(answers.skipped?.["@_message"]).toMatch(/finished before the repeats arrived/);
    },
  );

  it("--server from idem.config.json, --json: exit 0 and the stored run", { timeout: 90_000 }, async () => {
    // Over HTTP each repeat opens its own MCP session first; on a busy CI host that took longer than 1.5 s once
    // (exit 3, inconclusive): the repeats must still arrive while the first call waits on the processor.
    world.processor.setFaults({ latencyMs: 4_000 });
    const result = await verifyTool([
      "--server",
      "shop",
      "--args",
      args(),
      "--concurrency",
      "3",
      "--json",
      "--database-url",
      url,
    ]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    const verification = JSON.parse(result.stdout) as { verdict: string; concurrency: number; verifiedBy: string };
    expect(verification).toMatchObject({ verdict: "verified", concurrency: 3 });
    expect(verification.verifiedBy).toMatch(/^system:cli/);
  });

  it("bad input exits 2 with one line and calls nothing", { timeout: 180_000 }, async () => {
    const cases: [string[], RegExp][] = [
      [["--server", "shop-production", "--args", args()], /not marked "verify": true/],
      [["--server", "nowhere", "--args", args()], /No server "nowhere"/],
      [["--server", "shop", "--args", "[1,2]"], /expected a JSON object/],
      [["--server", "shop", "--args", "{nope"], /not JSON/],
      [["--server", "shop", "--args", args(), "--concurrency", "9"], /from 2 to 8/],
      [["--args", args()], /--server NAME.* or give --stdio/],
      [["--stdio", "node server.js | tee log", "--args", args()], /no pipes/],
      [
        ["--server", "shop", "--args", args(), "--database-url", "mysql://db/shop"],
        /--database-url must start with postgresql/,
      ],
    ];
    for (const [extra, message] of cases) {
      const result = await verifyTool(extra.includes("--database-url") ? extra : [...extra, "--database-url", url]);
      expect(result.code, `${extra.join(" ")}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/^\s+at /m);
    }
    expect(world.processor.stats().requests.total).toBe(0);
  });
  it(
    "--stdio against the reference writer with the README's arguments: exit 0; the same command again within the bucket: exit 3, naming the row and its bucket's end",
    { timeout: 120_000 },
    async () => {
      // Both runs in one 900 s bucket: wait out an edge closer than 30 s.
      const edge = (Math.floor(Date.now() / 900_000) + 1) * 900_000;
      if (edge - Date.now() < 30_000) await new Promise((resolve) => setTimeout(resolve, edge - Date.now() + 1_000));
      const command = [
        "--stdio",
        referenceWriter,
        "--server",
        "ci-reference",
        "--args",
        README_ARGS,
        "--database-url",
        url,
      ];
      const first = await verifyTool([...command, "--json"]);
      expect(first.code, first.stderr + first.stdout).toBe(0);
      const run1 = JSON.parse(first.stdout) as {
        verdict: string;
        evidence: { rows: { key: string; tool: unknown }[] };
      };
      expect(run1.verdict).toBe("verified");
      const key = run1.evidence.rows[0]!.key;
      expect(run1.evidence.rows[0]!.tool).toBeNull();
      expect(world.processor.stats().sideEffects).toBe(1);

      world.processor.reset();
      const junit = path.join(dir, `reference-again-${run}.xml`);
      const second = await verifyTool([...command, "--junit", junit]);
      expect(second.code, second.stderr + second.stdout).toBe(3);
      const created = (
        await pool.query<{ created_at: Date }>(`SELECT created_at FROM idempotency WHERE key = $1`, [key])
      ).rows[0]!.created_at;
      const end = new Date((Math.floor(Math.trunc(created.getTime() / 1000) / 900) + 1) * 900_000);
      const endText = `${end.toISOString().slice(0, 19).replace("T", " ")} UTC`;
      expect(second.stdout).toMatch(
        /ci-reference\/charge_card: INCONCLUSIVE at table — every call was answered from row /,
      );
      expect(second.stdout).toContain(`row ${key.slice(0, 12)}`);
      expect(second.stdout).toContain(`until ${endText}, the end of the default 900 s bucket`);
      expect(second.stdout).toMatch(
        new RegExp(`hint: Run it again with other arguments .*or with these after ${endText}`),
      );
      expect(second.stdout).not.toMatch(/FAILED|FAIL /);
      expect(world.processor.stats().sideEffects).toBe(0);
      const suite = readJunit(junit).testsuite;
      expect(suite["@_failures"]).toBe("0");
    },
  );
});
