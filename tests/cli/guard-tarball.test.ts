import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startCountingUpstream, type CountingUpstream } from "../helpers/counting-upstream";
import { awayFromBucketEdge } from "../helpers/mid-bucket-clock";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../..");
const guardDir = path.join(root, "packages/guard");
const versionOf = (name: string) =>
  (JSON.parse(readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version;

/** The README's quickstart, exactly as a newcomer copies it: the code block between the markers. */
function quickstartFromReadme(): string {
  const readme = readFileSync(path.join(guardDir, "README.md"), "utf8");
  const block = /<!-- quickstart:start -->\s*```ts\n([\s\S]*?)```\s*<!-- quickstart:end -->/.exec(readme);
  if (!block?.[1]) throw new Error("packages/guard/README.md has no quickstart block between its markers");
  return block[1];
}

type Result = { isError?: boolean; content: { type: string; text?: string }[] };

// Proof that idem-guard installs: the packed tarball in an empty project, the README's quickstart
// type-checked against the tarball's declarations and run as a stdio MCP server, then the reference
// text's test through the SDK client: the counting upstream is the assertion.
describe("idem-guard from its tarball", () => {
  const project = mkdtempSync(path.join(tmpdir(), "idem-guard-tarball-"));
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
  let upstream: CountingUpstream;
  let client: Client;
  let packed: string[] = [];

  beforeAll(async () => {
    const pack = await run("npm", ["pack", "--json", "--pack-destination", project], { cwd: guardDir });
    const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
    packed = info!.files.map((f) => f.path).sort();
    writeFileSync(
      path.join(project, "package.json"),
      JSON.stringify({ name: "adopter", private: true, type: "module" }),
    );
    const deps = [
      `./${info!.filename}`,
      `@modelcontextprotocol/sdk@${versionOf("@modelcontextprotocol/sdk")}`,
      `zod@${versionOf("zod")}`,
      `pg@${versionOf("pg")}`,
      `@types/pg@${versionOf("@types/pg")}`,
      `@types/node@${versionOf("@types/node")}`,
    ];
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...deps], { cwd: project });
    writeFileSync(path.join(project, "server.ts"), quickstartFromReadme());
    writeFileSync(
      path.join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        include: ["server.ts"],
      }),
    );
    upstream = await startCountingUpstream({ delayMs: 2_000 });
  }, 240_000);

  afterAll(async () => {
    await client?.close();
    await upstream?.close();
    await pool.end();
    rmSync(project, { recursive: true, force: true });
  });

  it("packs the built library, its types and its documents, and nothing else", () => {
    expect(packed).toContain("dist/index.js");
    expect(packed).toContain("dist/index.d.ts");
    expect(packed).toContain("dist/mcp/index.js");
    expect(packed).toContain("dist/mcp/index.d.ts");
    expect(packed).toEqual(expect.arrayContaining(["README.md", "CHANGELOG.md", "LICENSE", "package.json"]));
    expect(
      packed.filter((f) => !/^(dist\/.+\.(js|d\.ts)|README\.md|CHANGELOG\.md|LICENSE|package\.json)$/.test(f)),
    ).toEqual([]);
  });

  it("type-checks the quickstart against the installed package (strict, NodeNext)", { timeout: 120_000 }, async () => {
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", "."], { cwd: project }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) }),
    );
    expect(result.stdout).toBe("");
  });

  it("runs the reference text's test against the quickstart server", { timeout: 120_000 }, async () => {
    client = new Client({ name: "tarball-host", version: "2.0.1" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(root, "node_modules/tsx/dist/cli.mjs"), "server.ts"],
        cwd: project,
        env: { ...process.env, DATABASE_URL: inject("databaseUrl"), PAYMENTS_URL: upstream.url } as Record<
          string,
          string
        >,
        stderr: "inherit",
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === "charge_card")?.annotations?.idempotentHint).toBe(true);

    // The quickstart server keys on the wall clock: the pair and the repeat must not straddle a bucket's end
    // (CI's args were made 1.1 s before one, and the repeat charged again).
    await awayFromBucketEdge();
    const args = { card: `c_${Date.now()}`, amount_cents: 24_000 };
    const call = async () => (await client.callTool({ name: "charge_card", arguments: args })) as Result;
    const text = (r: Result) => r.content.map((c) => c.text ?? "").join("");

    const concurrent = await Promise.all([call(), call()]);
    expect(upstream.charges).toHaveLength(1);
    const receipt = concurrent.find((r) => !r.isError);
    const inFlight = concurrent.find((r) => r.isError);
    expect(receipt, "one call answered with the receipt").toBeDefined();
    expect(inFlight, "one call answered in flight").toBeDefined();
    const ref = /\(ref ([0-9a-f]{12})\)/.exec(text(inFlight!))?.[1];
    expect(text(inFlight!)).toMatch(
      /already in progress \(ref [0-9a-f]{12}\)\. Do not submit it again; call get_charge_status/,
    );

    const sequential = await call();
    expect(sequential.isError).toBeFalsy();
    expect(JSON.parse(text(sequential))).toEqual(JSON.parse(text(receipt!)));
    expect(upstream.charges).toHaveLength(1);

    const canonical = JSON.stringify({ amount_cents: args.amount_cents, card: args.card });
    const argumentsSha256 = createHash("sha256").update(canonical).digest("hex");
    const { rows } = await pool.query(
      `SELECT key, tenant, subject, tool, status FROM idempotency WHERE arguments_sha256 = $1`,
      [argumentsSha256],
    );
    expect(rows).toEqual([
      expect.objectContaining({
        tenant: "local",
        subject: userInfo().username,
        tool: "charge_card",
        status: "completed",
      }),
    ]);
    expect(String(rows[0].key).slice(0, 12)).toBe(ref);
    expect(upstream.charges[0]?.idempotencyKey).toBe(rows[0].key);
    const events = await pool.query(`SELECT kind, client FROM idempotency_event WHERE key = $1 ORDER BY id`, [
      rows[0].key,
    ]);
    expect(events.rows).toEqual([
      { kind: "in_flight_rejected", client: "tarball-host 2.0.1" },
      { kind: "replay_served", client: "tarball-host 2.0.1" },
    ]);
  });
});
