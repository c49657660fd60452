import { fork, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliEntry, EXPORT_WORKER, HISTORY_WORKER, pointerFile } from "../../scripts/cli-bundle.mjs";

// `npm run idem` runs the CLI from an esbuild bundle (scripts/idem.mjs): it must be rebuilt whenever a file it
// was built from changed, and reused otherwise. A cache of this file's own keeps the run's bundle out of it; it is
// under node_modules, as the real one is, so the bundle's imports of packages resolve.
mkdirSync(path.resolve("node_modules/.cache"), { recursive: true });
const cache = mkdtempSync(path.resolve("node_modules/.cache/idem-cli-test-"));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

type Pointer = { dir: string; builtAt: number; inputs: string[] };
const readPointer = () => JSON.parse(readFileSync(pointerFile(cache), "utf8")) as Pointer;
const rewritePointer = (change: (pointer: Pointer) => Pointer) =>
  writeFileSync(pointerFile(cache), JSON.stringify(change(readPointer())));

describe("the CLI's bundle", () => {
  it("is built from lib/cli/main.ts and what it imports, and runs as the CLI", async () => {
    const entry = await cliEntry(cache);
    const inputs = readPointer().inputs;
    expect(inputs).toContain("lib/cli/main.ts");
    expect(inputs).toContain("lib/cli/commands/key.ts");
    expect(inputs).toContain("tsconfig.json");
    const run = spawnSync(process.execPath, ["--conditions=react-server", entry, "key", "--help"], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Usage: idem key/);
  });

  it("has the export's worker thread beside its entry, and it reads an export on connections of its own", async () => {
    const entry = await cliEntry(cache);
    const worker = path.join(path.dirname(entry), `${EXPORT_WORKER}.mjs`);
    // No database here: a plan that points where nothing listens gets pg's own refusal back, through the
    // worker's reading (tests/cli/bench-writers.test.ts exports rows through this bundle's worker).
    const statement = { text: "SELECT 1 LIMIT $1", values: [0] };
    const plan = {
      connection: { connectionString: "postgresql://nobody@127.0.0.1:1/none", connectionTimeoutMillis: 2_000 },
      statements: { first: statement, after: { ...statement, cursorAt: { createdAt: 0, key: 0 } } },
      format: {
        format: "csv",
        redaction: { paths: [], values: { email: true, cardNumbers: true } },
        stuckAfterMs: { byTool: {}, otherwise: 300_000 },
      },
      maxRows: 10,
      batchSize: 10,
    };
    const script = `import { Worker } from "node:worker_threads";
      const worker = new Worker(${JSON.stringify(worker)}, { execArgv: ["--conditions=react-server"] });
      worker.on("message", (reply) => { process.stdout.write(JSON.stringify(reply)); worker.terminate(); });
      worker.postMessage({ kind: "start", exportId: 1, plan: ${JSON.stringify(plan)} });
      worker.postMessage({ kind: "next", id: 7, exportId: 1 });`;
    const run = spawnSync(process.execPath, ["--conditions=react-server", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ id: 7, error: expect.stringMatching(/ECONNREFUSED 127\.0\.0\.1:1/) });
  });

  it("has the demo history's worker beside its entry, and it runs in a plain node process", async () => {
    const worker = path.join(path.dirname(await cliEntry(cache)), `${HISTORY_WORKER}.mjs`);
    // No hours of history, so only the few scenarios that every history ends with, on a database nothing listens on.
    const child = fork(worker, [], {
      execArgv: ["--conditions=react-server"],
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const message = await new Promise<unknown>((resolve, reject) => {
      child.on("message", (m: { type: string }) => m.type !== "progress" && resolve(m));
      child.once("exit", (code) => reject(new Error(`the worker exited (${code}) before reporting: ${stderr}`)));
      child.send({
        seed: 1,
        hours: 0,
        end: "2026-12-07T00:00:00.000Z",
        callsPerHour: 420,
        concurrency: 1,
        shard: 0,
        shards: 1,
        databaseUrl: "postgresql://nobody@127.0.0.1:1/none",
        processorUrl: "http://127.0.0.1:1",
        carrierUrl: "http://127.0.0.1:1",
      });
    });
    // It ran its share through the guard: every call an error, the database being unreachable.
    expect(message).toMatchObject({ type: "done", counts: { callsByTool: { charge_card: { error: 3 } }, calls: 3 } });
    expect(stderr).toBe("");
  });

  it("is reused while none of its inputs changed", async () => {
    const first = await cliEntry(cache);
    expect(await cliEntry(cache)).toBe(first);
  });

  it("is rebuilt when an input is newer than the build", async () => {
    const first = await cliEntry(cache);
    // As if every source had been edited after the build started.
    rewritePointer((pointer) => ({ ...pointer, builtAt: 0 }));
    const second = await cliEntry(cache);
    expect(second).not.toBe(first);
    expect(readPointer().builtAt).toBeGreaterThan(0);
  });

  it("is rebuilt when an input is gone", async () => {
    const first = await cliEntry(cache);
    rewritePointer((pointer) => ({ ...pointer, inputs: [...pointer.inputs, "lib/cli/commands/removed-since.ts"] }));
    expect(await cliEntry(cache)).not.toBe(first);
  });
});
