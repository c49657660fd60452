import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it, type TestContext } from "vitest";
import {
  argumentsMismatchMessage,
  deriveKey,
  EVENT_KINDS,
  inFlightMessage,
  outcomeUnknownMessage,
  type KeyScheme,
} from "idem-guard";
import { createTestDatabase } from "../helpers/test-database";

// The Python writer kit (packages/python): its pytest suite against a fresh migrated database, and
// the shared key vectors (packages/vectors/keys.json) derived by both packages.

const ROOT = path.resolve(import.meta.dirname, "../..");
/** Debian's interpreter, where python3-pytest and python3-asyncpg install (not whatever python3 PATH finds). */
const PYTHON = "/usr/bin/python3";
const VECTORS = path.join(ROOT, "packages/vectors/keys.json");

type Expected = { canonical: string; key: string; ref: string; argumentsSha256: string; bucket: string };
type Vector = {
  name: string;
  tenant: string;
  subject: string | null;
  tool: string;
  argumentsJson: string;
  at: string;
  windowSeconds: number;
  scheme: KeyScheme;
  businessKey?: string;
  /** Default true; false: the business key alone names the operation (`tenant|subject|tool|businessKey`). */
  argumentsInKey?: boolean;
  expected: Expected;
};

/** Why the Python side cannot run here (null when it can). */
function pythonMissing(modules: string[]): string | null {
  if (!existsSync(PYTHON)) return `${PYTHON} is not installed`;
  const probe = spawnSync(
    PYTHON,
    [
      "-c",
      ["import sys; assert sys.version_info >= (3, 11), sys.version", ...modules.map((m) => `import ${m}`)].join("; "),
    ],
    {
      encoding: "utf8",
      env: pythonEnvironment(),
    },
  );
  if (probe.status === 0) return null;
  const last = probe.stderr.trim().split("\n").pop() ?? "";
  return `${PYTHON} cannot run the Python writer kit (${last}); apt-get install python3-pytest python3-asyncpg`;
}

/** In CI a missing interpreter or module is a failure; elsewhere the test skips and says why. */
function requirePython(ctx: TestContext, modules: string[]): void {
  const missing = pythonMissing(modules);
  if (missing === null) return;
  if (process.env.CI) throw new Error(`CI needs the Python writer kit's interpreter: ${missing}`);
  ctx.skip(missing);
}

function pythonEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PYTHONPATH: "packages/python/src",
    PYTHONDONTWRITEBYTECODE: "1", // no __pycache__ left in the checkout
    PYTHONIOENCODING: "utf-8",
    ...extra,
  };
  delete env.PYTHONHOME;
  return env;
}

describe("the Python writer kit", () => {
  it("passes its pytest suite against a fresh migrated database", { timeout: 120_000 }, async (ctx) => {
    requirePython(ctx, ["pytest", "asyncpg"]);
    const database = await createTestDatabase();
    try {
      const run = spawnSync(PYTHON, ["-m", "pytest", "packages/python/tests", "-q", "-rs", "-p", "no:cacheprovider"], {
        cwd: ROOT,
        encoding: "utf8",
        env: pythonEnvironment({ IDEM_TEST_DATABASE_URL: database.url }),
        timeout: 110_000,
        maxBuffer: 16 * 1024 * 1024,
      });
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.status, `pytest exited ${run.status ?? run.signal}:\n${output}`).toBe(0);
      expect(output).toMatch(/\d+ passed/);
      // A run that skipped the database tests would pass without having tested the guard.
      expect(output, output).not.toContain("IDEM_TEST_DATABASE_URL is not set");
    } finally {
      await database.drop();
    }
  });
});

describe("the shared key vectors", () => {
  const cases = JSON.parse(readFileSync(VECTORS, "utf8")) as Vector[];
  type MessageInput =
    | { kind: "in_flight"; args: [noun: string, ref: string, statusTool: string] }
    | { kind: "arguments_mismatch"; args: [noun: string, ref: string, statusTool: string] }
    | {
        kind: "outcome_unknown";
        args: [upstream: string, noun: string, ref: string, statusTool: string, waitedMs: number | null];
      };
  const messageInputs: MessageInput[] = [
    { kind: "in_flight", args: ["A charge", "3ee70cf28873", "get_charge_status"] },
    { kind: "in_flight", args: ["Une expédition", "ffffffffffff", "obtenir_l'état 📦"] },
    ...[null, 0, 250, 1_500, 9_950, 9_999, 10_000, 10_500, 30_000, 1_234_567].map((waitedMs): MessageInput => ({
      kind: "outcome_unknown",
      args: ["processor", "A charge", "3ee70cf28873", "get_charge_status", waitedMs],
    })),
    { kind: "outcome_unknown", args: ["carrier", "A shipment", "0123456789ab", "get_shipment", null] },
    { kind: "arguments_mismatch", args: ["A charge", "3f9a1c2b7d4e", "get_charge_status"] },
    { kind: "arguments_mismatch", args: ["Une expédition", "ffffffffffff", "obtenir_l'état 📦"] },
  ];

  /** One Python process: every vector's derived fields (or its error), every message, the event kinds. */
  function pythonSide(): {
    keys: Record<string, Expected | { error: string }>;
    messages: string[];
    eventKinds: string[];
  } {
    const script = `
import json, sys
from datetime import datetime
from idem_guard import EVENT_KINDS, arguments_mismatch_message, derive_key, in_flight_message, outcome_unknown_message

request = json.load(sys.stdin)
with open(request["vectors"], encoding="utf-8") as file:
    cases = json.load(file)
keys = {}
for case in cases:
    try:
        d = derive_key(case["tenant"], case["subject"], case["tool"], json.loads(case["argumentsJson"]),
                       at=datetime.fromisoformat(case["at"]), window_seconds=case["windowSeconds"],
                       scheme=case["scheme"], business_key=case.get("businessKey"),
                       arguments_in_key=case.get("argumentsInKey", True))
        keys[case["name"]] = {"canonical": d.canonical, "key": d.key, "ref": d.ref,
                              "argumentsSha256": d.arguments_sha256, "bucket": d.bucket}
    except Exception as error:
        keys[case["name"]] = {"error": f"{type(error).__name__}: {error}"}
writers = {"in_flight": in_flight_message, "outcome_unknown": outcome_unknown_message,
           "arguments_mismatch": arguments_mismatch_message}
messages = [writers[m["kind"]](*m["args"]) for m in request["messages"]]
json.dump({"keys": keys, "messages": messages, "eventKinds": list(EVENT_KINDS)}, sys.stdout)
`;
    const run = spawnSync(PYTHON, ["-c", script], {
      cwd: ROOT,
      encoding: "utf8",
      env: pythonEnvironment(),
      input: JSON.stringify({ vectors: VECTORS, messages: messageInputs }),
      timeout: 30_000,
    });
    expect(run.status, `the Python side exited ${run.status ?? run.signal}:\n${run.stderr}`).toBe(0);
    return JSON.parse(run.stdout) as ReturnType<typeof pythonSide>;
  }

  it("has about thirty uniquely named cases over both schemes", () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    expect(new Set(cases.map((c) => c.scheme))).toEqual(new Set(["python-json", "jcs"]));
  });

  it("has cases where the business key alone names the operation, hashed without the arguments", () => {
    const alone = cases.filter((c) => c.argumentsInKey === false);
    expect(alone.length).toBeGreaterThanOrEqual(3);
    expect(cases.every((c) => c.argumentsInKey === undefined || typeof c.argumentsInKey === "boolean")).toBe(true);
    expect(alone.some((c) => c.subject === null)).toBe(true);
    expect(alone.some((c) => c.subject !== null)).toBe(true);
    expect(alone.some((c) => /\P{ASCII}/u.test(c.businessKey ?? ""))).toBe(true);
    expect(new Set(alone.map((c) => c.scheme))).toEqual(new Set(["python-json", "jcs"]));
    for (const c of alone) {
      // The formula itself, not deriveKey: sha256 of tenant|subject|tool|businessKey.
      const material = `${c.tenant}|${c.subject ?? "None"}|${c.tool}|${c.businessKey}`;
      expect(c.expected.key, c.name).toBe(createHash("sha256").update(material, "utf8").digest("hex"));
      expect(c.expected.argumentsSha256, c.name).toBe(
        createHash("sha256").update(c.expected.canonical, "utf8").digest("hex"),
      );
      expect(c.expected.bucket, c.name).toBe(c.businessKey);
    }
    // One business key, other arguments (and another time): one key, two argument hashes.
    const shared = alone.filter((c) => alone.some((o) => o !== c && o.expected.key === c.expected.key));
    expect(new Set(shared.map((c) => c.expected.argumentsSha256)).size).toBeGreaterThan(1);
  });

  it("TypeScript and Python derive every case exactly as expected", (ctx) => {
    requirePython(ctx, []);
    const python = pythonSide();
    const mismatches: string[] = [];
    for (const c of cases) {
      const d = deriveKey({
        tenant: c.tenant,
        subject: c.subject,
        tool: c.tool,
        argumentsJson: c.argumentsJson,
        at: new Date(c.at),
        windowSeconds: c.windowSeconds,
        scheme: c.scheme,
        businessKey: c.businessKey,
        argumentsInKey: c.argumentsInKey,
      });
      const typescript: Expected = {
        canonical: d.canonical,
        key: d.key,
        ref: d.ref,
        argumentsSha256: d.argumentsSha256,
        bucket: d.bucket,
      };
      const fromPython = python.keys[c.name];
      for (const [side, got] of [
        ["TypeScript", typescript],
        ["Python", fromPython],
      ] as const) {
        if (!isDeepStrictEqual(got, c.expected)) {
          mismatches.push(`${c.name}: ${side} derived ${JSON.stringify(got)}, expected ${JSON.stringify(c.expected)}`);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("Python writes the caller-facing messages byte for byte as TypeScript does", (ctx) => {
    requirePython(ctx, []);
    const { messages } = pythonSide();
    const typescript = messageInputs.map((m) =>
      m.kind === "in_flight"
        ? inFlightMessage(...m.args)
        : m.kind === "arguments_mismatch"
          ? argumentsMismatchMessage(...m.args)
          : outcomeUnknownMessage(m.args[0], m.args[1], m.args[2], m.args[3], m.args[4] ?? undefined),
    );
    expect(messages).toEqual(typescript);
    expect(new Set(messageInputs.map((m) => m.kind))).toEqual(
      new Set(["in_flight", "outcome_unknown", "arguments_mismatch"]),
    );
    expect(typescript[0]).toBe(
      "A charge with these exact details is already in progress (ref 3ee70cf28873). Do not submit it again; call get_charge_status with this ref.",
    );
    expect(typescript.at(-2)).toBe(
      "A charge with this business key was already submitted with other arguments (ref 3f9a1c2b7d4e); this call was refused and not performed. Do not repeat it with the same business key; use a new one (such as a new order id) for a different operation, or call get_charge_status with this ref to see the first.",
    );
  });

  it("Python appends the same event kinds as TypeScript", (ctx) => {
    requirePython(ctx, []);
    expect(pythonSide().eventKinds).toEqual([...EVENT_KINDS]);
  });
});
