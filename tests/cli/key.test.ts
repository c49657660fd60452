import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { parseAtOption, parseSchemeOption, parseWindowOption } from "@/lib/cli/commands/key";
import { deriveKey } from "idem-guard";
import { runCli } from "../helpers/run-cli";

// `idem key` needs no database: point DATABASE_URL at nothing to prove it never connects.
const env = { DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none" };
const args = '{"card": "c_71", "amount_cents": 24000, "note": "caf\u00e9", "qty": 1.0}';

// Each run starts a Node process; running them side by side keeps the file fast.
describe.concurrent("npm run idem -- key", () => {
  it("--json prints what deriveKey computes for the same input", async () => {
    const result = await runCli(
      [
        "key",
        "--tenant",
        "acme",
        "--subject",
        "user_42",
        "--tool",
        "charge_card",
        "--args",
        args,
        "--at",
        "2026-03-01T12:00:00Z",
        "--json",
      ],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const expected = deriveKey({
      tenant: "acme",
      subject: "user_42",
      tool: "charge_card",
      argumentsJson: args,
      at: new Date("2026-03-01T12:00:00Z"),
    });
    expect(JSON.parse(result.stdout)).toEqual(expected);
  });

  it("unix seconds, window, jcs scheme and no subject (None) reach deriveKey", async () => {
    const result = await runCli(
      [
        "key",
        "--tenant",
        "acme",
        "--tool",
        "charge_card",
        "--args",
        args,
        "--at",
        "1772366461",
        "--window",
        "60",
        "--scheme",
        "jcs",
        "--json",
      ],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const expected = deriveKey({
      tenant: "acme",
      subject: null,
      tool: "charge_card",
      argumentsJson: args,
      at: new Date(1772366461_000),
      windowSeconds: 60,
      scheme: "jcs",
    });
    expect(JSON.parse(result.stdout)).toEqual(expected);
    expect(expected.material.startsWith("acme|None|charge_card|")).toBe(true);
    expect(expected.bucket).toBe(String(Math.floor(1772366461 / 60)));
  });

  it("text mode prints one `name: value` line each; a business key replaces the bucket", async () => {
    const result = await runCli(
      ["key", "--tenant", "acme", "--tool", "create_shipment", "--args", "{}", "--business-key", "order_9001"],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const expected = deriveKey({
      tenant: "acme",
      subject: null,
      tool: "create_shipment",
      argumentsJson: "{}",
      at: new Date(),
      businessKey: "order_9001",
    });
    expect(result.stdout).toBe(
      [
        `scheme: python-json`,
        `canonical: {}`,
        `material: acme|None|create_shipment|{}|order_9001`,
        `bucket: order_9001`,
        `key: ${expected.key}`,
        `ref: ${expected.ref}`,
        `argumentsSha256: ${expected.argumentsSha256}`,
        "",
      ].join("\n"),
    );
  });

  it("--business-key-alone leaves the arguments out of the key, as argumentsInKey: false does", async () => {
    const args = ["key", "--tenant", "acme", "--tool", "ship_order", "--business-key", "order-7", "--json"];
    const express = await runCli([...args, "--args", '{"service":"express"}', "--business-key-alone"], env);
    const standard = await runCli([...args, "--args", '{"service":"standard"}', "--business-key-alone"], env);
    expect(express.code, express.stderr).toBe(0);
    const [a, b] = [JSON.parse(express.stdout), JSON.parse(standard.stdout)];
    expect(a.material).toBe("acme|None|ship_order|order-7");
    expect(a.key).toBe(b.key);
    expect(a.argumentsSha256).not.toBe(b.argumentsSha256);
    const withArguments = JSON.parse((await runCli([...args, "--args", '{"service":"express"}'], env)).stdout);
    expect(withArguments.key).not.toBe(a.key);
  });

  it.each([
    [
      ["--args", "{amount: 1}"],
      /--args: not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 \(char 1\)/,
    ],
    [["--args", "{}", "--window", "0"], /--window.*expected a positive whole number of seconds/],
    [
      ["--args", "{}", "--at", "yesterday"],
      /--at.*expected an ISO 8601 date .*, or unix seconds; a time without a zone is refused/,
    ],
    [["--args", "{}", "--scheme", "yaml"], /--scheme.*expected python-json or jcs/],
    [["--args", "{}", "--business-key", ""], /businessKey: must not be empty/],
    [[], /required option '--args/],
  ])("%j exits 2 with one clear line naming the field", async (extra, message) => {
    const result = await runCli(["key", "--tenant", "acme", "--tool", "charge_card", ...extra], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/^\s+at /m); // no stack trace
    expect(result.stdout).toBe("");
  });
});

// The option parsers in-process: every spelling without paying for a Node start each.
describe("idem key option parsers", () => {
  it.each(["0", "-1", "1.5", "1e3", "", "abc", "9007199254740993"])("--window %j is refused", (value) => {
    expect(() => parseWindowOption(value)).toThrow(InvalidArgumentError);
  });

  it("--window takes a positive whole number", () => {
    expect(parseWindowOption("900")).toBe(900);
    expect(parseWindowOption("1")).toBe(1);
  });

  it.each(["yesterday", "2026-03-01T12:00:00", "March 3", "2026-13-01", "1e9", ""])("--at %j is refused", (value) => {
    expect(() => parseAtOption(value)).toThrow(InvalidArgumentError);
  });

  it.each([
    ["1772366400", "2026-03-01T12:00:00.000Z"],
    ["1772366400.5", "2026-03-01T12:00:00.500Z"],
    ["2026-03-01T13:00:00+01:00", "2026-03-01T12:00:00.000Z"],
    ["2026-03-01", "2026-03-01T00:00:00.000Z"],
  ])("--at %j is %s", (value, iso) => {
    expect(parseAtOption(value).toISOString()).toBe(iso);
  });

  it("--scheme takes python-json or jcs only", () => {
    expect(parseSchemeOption("jcs")).toBe("jcs");
    expect(parseSchemeOption("python-json")).toBe("python-json");
    expect(() => parseSchemeOption("JCS")).toThrow(InvalidArgumentError);
  });
});
