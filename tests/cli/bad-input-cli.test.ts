import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { parseConfig } from "@/lib/config/load";
import { UserError } from "@/lib/errors/user-error";
import { connectTestDb } from "../helpers/db";
import { runCli } from "../helpers/run-cli";

// Every CLI command's options and arguments, and the configuration file, fed bad input: each
// exits 2 with one line naming the option (or the file and field), no stack trace, and the
// database is unchanged. (NUL cannot be passed in argv at all; 100 kB stands in for "oversized",
// since Linux refuses a single argument over 128 kB.)
const url = inject("databaseUrl");

const NUMBERS = ["", "abc", "-1", "0x1g", "1e309", "NaN", "9".repeat(400), "1.5", "𝌆", "' OR 1=1 --"];
const DURATIONS = ["", "5 minutes", "-5m", "0s", "1e309h", "NaN", "𝌆m", "../../etc/passwd", "5m; rm -rf /"];
const NAMES = ["", "a b", "x\r\nSet-Cookie: y", "\u202E\u0001", "x".repeat(201)];
const OVERSIZED = "a".repeat(100_000);

/** [argv, the option the message must name]: each must exit 2. Half of each list on one option, one value on each other option: each case is a process of its own (2–6 s on a busy machine). */
const CASES: [string[], RegExp][] = [
  ...NUMBERS.filter((_, i) => i % 2 === 0).map((v): [string[], RegExp] => [
    ["reconcile", "--limit", v, "--dry-run"],
    /--limit/,
  ]),
  [["reconcile", "--concurrency", "0", "--dry-run"], /--concurrency/],
  [["trim", "--batch", "1e309", "--dry-run"], /--batch/],
  [["jobs", "--limit", "0"], /--limit/],
  [["jobs", "--job", "sweep"], /--job/],
  [["bench-guard", "--iterations", "NaN"], /--iterations/],
  [["bench", "--rows", "1e7"], /--rows/],
  [["bench", "--iterations", "4"], /--iterations/],
  [["bench-writers", "--console-parallel-workers", "65"], /--console-parallel-workers/],
  [["seed-demo", "--seed", "-1"], /--seed/],
  [["seed-demo", "--hours", "𝌆"], /--hours/],
  [["rollup", "--catch-up", "9".repeat(400)], /--catch-up/],
  [["rollup", "--recount-from", "2026-02-31T10:00Z"], /--recount-from/],
  [["rollup", "--recount-from", "2026-12-01 10:00"], /--recount-from/],
  // Well-formed, refused by the recount itself before it takes a lock.
  [["rollup", "--recount-from", "2999-01-01T00:00Z"], /--recount-from 2999-01-01T00:00:00.000Z is in the future/],
  [["serve", "--port", "' OR 1=1 --"], /--port/],
  [["demo", "--port", "70000"], /--port/],
  [["key", "--tenant", "t", "--tool", "x", "--args", "{}", "--window", "-1"], /--window/],
  ...DURATIONS.filter((_, i) => i % 2 === 1).map((v): [string[], RegExp] => [
    ["trim", "--older-than", v, "--dry-run"],
    /--older-than/,
  ]),
  [["reconcile", "--older-than", "5 minutes", "--dry-run"], /--older-than/],
  [["token", "create", "--role", "viewer", "--name", "bad-input-cli", "--expires", "-5m"], /--expires/],
  ...NAMES.map((v): [string[], RegExp] => [["reconcile", "--tool", v, "--dry-run"], /--tool/]),
  [["reconcile", "--tenant", "x\r\nSet-Cookie: y", "--dry-run"], /--tenant/],
  // Well-formed, but no tenant of that name has left a row anywhere: not "0 candidates".
  [
    ["reconcile", "--tenant", "no-such-tenant-cli", "--dry-run"],
    /--tenant: no tenant 'no-such-tenant-cli' among yours/,
  ],
  [["token", "create", "--role", "viewer", "--name", "bad-input-cli", "--tenant", "a,b"], /--tenant/],
  [["user", "add", "--email", "bad-input@cli.test", "--role", "viewer", "--tenant", "a b"], /--tenant/],
  [["token", "create", "--role", "root", "--name", "bad-input-cli"], /--role/],
  [["token", "create", "--scope", "everything", "--name", "bad-input-cli"], /--scope/],
  [["token", "create", "--name", "bad-input-cli"], /--role/],
  [["token", "create", "--role", "viewer; DROP TABLE api_token", "--name", "bad-input-cli"], /--role/],
  [["user", "add", "--email", "bad-input@cli.test", "--role", "<script>alert(1)</script>"], /--role/],
  ...["not-an-email", "a@b\r\nc", OVERSIZED].map((v): [string[], RegExp] => [
    ["user", "add", "--email", v, "--role", "viewer"],
    /email/,
  ]),
  ...["{", `{"a": ${"[".repeat(3000)}`, OVERSIZED].map((v): [string[], RegExp] => [
    ["key", "--tenant", "t", "--tool", "x", "--args", v],
    /--args|args/,
  ]),
  ...["yesterday", "2026-13-45T00:00:00Z"].map((v): [string[], RegExp] => [
    ["key", "--tenant", "t", "--tool", "x", "--args", "{}", "--at", v],
    /--at/,
  ]),
  [["key", "--tenant", "t", "--tool", "x", "--args", "{}", "--scheme", "md5"], /--scheme/],
  ...["a b", "999.999.999.999.999", "0.0.0.0; rm -rf /"].map((v): [string[], RegExp] => [
    ["serve", "--host", v],
    /--host/,
  ]),
  [["token", "revoke", "' OR 1=1 --"], /No token/],
  [["user", "disable", "<script>@x"], /No user|email/],
  [["reconcile", "--bogus"], /unknown option '--bogus'/],
  [["trim", "--older-than"], /--older-than/],
];

function expectOneCleanLine(stderr: string, context: string) {
  expect(stderr, context).not.toMatch(/^\s+at /m);
  expect(stderr, context).not.toMatch(/node_modules|\.ts:\d+/);
  const lines = stderr
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("idem: ") || l.startsWith("error: "));
  expect(lines, context).toHaveLength(1);
  expect(lines[0]!.length, context).toBeLessThan(600);
}

describe("bad input to the CLI and the configuration file", () => {
  const db = connectTestDb();
  const counts = async () => ({
    tokens: await db.apiToken.count(),
    users: await db.consoleUser.count(),
    audit: await db.auditLog.count({ where: { actor: { startsWith: "cli (" } } }),
  });
  let tried = 0;
  afterAll(() => console.log(`bad-input CLI and config sweep: ${tried} bad inputs tried`));

  it(`every command's options and arguments (${CASES.length} cases): exit 2, one line naming the option, nothing written`, async () => {
    const before = await counts();
    const failures: string[] = [];
    const queue = [...CASES];
    // Three at a time: each is a Node process of its own.
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [args, names] = next;
          const context = JSON.stringify(args.map((a) => (a.length > 40 ? `${a.slice(0, 20)}…(${a.length})` : a)));
          const result = await runCli(args, { DATABASE_URL: url, IDEM_CONFIG: undefined });
          tried += 1;
          try {
            expect(result.code, `${context}: ${result.stderr.slice(0, 300)}`).toBe(2);
            expect(result.stderr, context).toMatch(names);
            expectOneCleanLine(result.stderr, context);
          } catch (error) {
            failures.push((error as Error).message.split("\n")[0]!.slice(0, 400));
          }
        }
      }),
    );
    expect(failures).toEqual([]);
    expect(await counts()).toEqual(before);
  }, 400_000);

  const BROKEN_CONFIGS: [label: string, text: string, names: RegExp][] = [
    ["empty file", "", /not valid JSON/],
    ["broken JSON", '{"tools": {', /not valid JSON/],
    ["a list", "[]", /\(top level\)/],
    ["null", "null", /\(top level\)/],
    ["unknown top-level key", JSON.stringify({ tool: {} }), /tool/],
    ["unknown tool key", JSON.stringify({ tools: { charge_card: { stuckafter: "5m" } } }), /tools\.charge_card/],
    ["tools a list", JSON.stringify({ tools: [] }), /tools/],
    ["stuckAfter a number", JSON.stringify({ tools: { t: { stuckAfter: 300 } } }), /tools\.t\.stuckAfter/],
    ["stuckAfter negative", JSON.stringify({ tools: { t: { stuckAfter: "-5m" } } }), /tools\.t\.stuckAfter/],
    [
      "stuckAfter 2 MB",
      JSON.stringify({ tools: { t: { stuckAfter: "9".repeat(2 * 1024 * 1024) } } }),
      /tools\.t\.stuckAfter/,
    ],
    ["processor type unknown", JSON.stringify({ tools: { t: { processor: { type: "ftp" } } } }), /tools\.t\.processor/],
    [
      "baseUrl a file",
      JSON.stringify({ tools: { t: { processor: { type: "http", baseUrl: "file:///etc/passwd" } } } }),
      /tools\.t\.processor\.baseUrl/,
    ],
    [
      "baseUrl javascript",
      JSON.stringify({ tools: { t: { processor: { type: "http", baseUrl: "javascript:alert(1)" } } } }),
      /tools\.t\.processor\.baseUrl/,
    ],
    [
      "header CRLF",
      JSON.stringify({
        tools: { t: { processor: { type: "http", baseUrl: "http://x", headers: { a: "b\r\nSet-Cookie: c" } } } },
      }),
      /tools\.t\.processor\.headers/,
    ],
    [
      "timeout a word",
      JSON.stringify({ tools: { t: { processor: { type: "http", baseUrl: "http://x", timeout: "soon" } } } }),
      /tools\.t\.processor\.timeout/,
    ],
    ["mcp server without transport", JSON.stringify({ mcpServers: [{ name: "s", url: "http://x" }] }), /mcpServers\.0/],
    [
      "mcp server name traversal",
      JSON.stringify({ mcpServers: [{ name: "../../x", transport: "http", url: "http://x" }] }),
      /mcpServers\.0\.name/,
    ],
    [
      "stdio args not strings",
      JSON.stringify({ mcpServers: [{ name: "s", transport: "stdio", command: "x", args: [1] }] }),
      /mcpServers\.0\.args/,
    ],
    ["redact not a list", JSON.stringify({ redact: "$..card" }), /redact/],
    ["redact not a JSONPath", JSON.stringify({ redact: ["card"] }), /redact\.0/],
    [
      "redact script filter",
      JSON.stringify({ redact: ["$..[?(@.constructor.constructor('return process')().exit())]"] }),
      /redact\.0/,
    ],
    ["NUL in a tool name", '{"tools": {"a\\u0000b": {"stuckAfter": "5m"}}}', /tools/],
    ["lone surrogate", '{"tools": {"\\ud800": {"stuckAfter": "5m"}}}', /tools/],
    ["proto key", '{"__proto__": {"tools": {}}}', /__proto__/],
  ];

  it.each(BROKEN_CONFIGS)("idem.config.json %s: a UserError naming the file and the field", (_label, text, names) => {
    tried += 1;
    let error: unknown;
    try {
      parseConfig(text, "idem.config.json");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UserError);
    const message = (error as UserError).message;
    expect(message).toMatch(/^idem\.config\.json: /);
    expect(message).toMatch(names);
    expect(message.length).toBeLessThan(1000);
  });

  it(
    "a broken configuration stops the CLI with exit 2 and one line naming the field",
    { timeout: 120_000 },
    async () => {
      const dir = mkdtempSync(path.join(tmpdir(), "idem-bad-config-"));
      for (const [label, text, names] of BROKEN_CONFIGS.filter(([label]) =>
        ["broken JSON", "unknown tool key", "baseUrl a file", "redact script filter"].includes(label),
      )) {
        const file = path.join(dir, `${label.replace(/\W+/g, "-")}.json`);
        writeFileSync(file, text);
        const result = await runCli(["reconcile", "--dry-run"], { DATABASE_URL: url, IDEM_CONFIG: file });
        tried += 1;
        expect(result.code, `${label}: ${result.stderr}`).toBe(2);
        expect(result.stderr, label).toMatch(names);
        expect(result.stderr, label).toContain(file);
        expectOneCleanLine(result.stderr, label);
      }
      const missing = await runCli(["reconcile", "--dry-run"], {
        DATABASE_URL: url,
        IDEM_CONFIG: path.join(dir, "absent.json"),
      });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/cannot read the configuration file/);
    },
  );
});
