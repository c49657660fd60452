import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { argumentsJsonOf, DEFAULT_WINDOW_SECONDS, deriveKey, KeyInputError, refOf, type KeyInput } from "idem-guard";

const at = new Date("2026-03-01T12:00:00Z"); // unix 1772366400 = 900 × 1969296
const base: KeyInput = {
  tenant: "acme",
  subject: "user_42",
  tool: "charge_card",
  argumentsJson: '{"amount_cents": 24000, "card": "c_71"}',
  at,
};

describe("deriveKey", () => {
  it("gives two orderings of one object one key", () => {
    const a = deriveKey(base);
    const b = deriveKey({ ...base, argumentsJson: '{"card": "c_71", "amount_cents": 24000}' });
    expect(b.key).toBe(a.key);
    expect(a.canonical).toBe('{"amount_cents":24000,"card":"c_71"}');
    // A penny's difference is another operation.
    expect(deriveKey({ ...base, argumentsJson: '{"card": "c_71", "amount_cents": 24001}' }).key).not.toBe(a.key);
  });

  it("hashes the f-string material: tenant|subject|tool|canonical|bucket", () => {
    const d = deriveKey(base);
    expect(d).toEqual({
      scheme: "python-json",
      canonical: '{"amount_cents":24000,"card":"c_71"}',
      material: 'acme|user_42|charge_card|{"amount_cents":24000,"card":"c_71"}|1969296',
      bucket: "1969296",
      // Hand-checked: python3 -c 'import hashlib; print(hashlib.sha256(b"acme|user_42|charge_card|{\"amount_cents\":24000,\"card\":\"c_71\"}|1969296").hexdigest())'
      key: "3ee70cf2887316521387af129388be54fa510dba3674e93b7387992a6b19bb50",
      ref: "3ee70cf28873",
      // Hand-checked: printf '%s' '{"amount_cents":24000,"card":"c_71"}' | sha256sum
      argumentsSha256: "ed92713d04f0dbb6556b4f9d03e661ee82b6041391f9c27be50afff1048cb567",
    });
  });

  it("writes a missing subject as Python's None", () => {
    const d = deriveKey({ ...base, subject: null });
    expect(d.material.startsWith("acme|None|charge_card|")).toBe(true);
    expect(d.key).not.toBe(deriveKey(base).key);
    expect(d.key).toBe(deriveKey({ ...base, subject: "None" }).key); // exactly what the writer's f-string does
  });

  it("buckets time by the window: the last second of a bucket and the first of the next differ", () => {
    const start = 1772366400; // a multiple of 900
    const keyAt = (seconds: number, windowSeconds?: number) =>
      deriveKey({ ...base, at: new Date(seconds * 1000), windowSeconds });
    expect(keyAt(start).bucket).toBe(String(start / 900));
    expect(keyAt(start + 899.999).key).toBe(keyAt(start).key);
    expect(keyAt(start + 900).key).not.toBe(keyAt(start).key);
    expect(keyAt(start, 60).bucket).toBe(String(start / 60));
    expect(DEFAULT_WINDOW_SECONDS).toBe(900);
    // int(time.time()) truncates toward zero before flooring: -900.5 s is -900 s, bucket -1 (not -2).
    expect(keyAt(-900.5).bucket).toBe("-1");
    expect(keyAt(-901).bucket).toBe("-2");
  });

  it("a business key replaces the time bucket", () => {
    const a = deriveKey({ ...base, businessKey: "order_9001" });
    const b = deriveKey({ ...base, businessKey: "order_9001", at: new Date("2027-01-01T00:00:00Z") });
    expect(a.bucket).toBe("order_9001");
    expect(a.material.endsWith("|order_9001")).toBe(true);
    expect(b.key).toBe(a.key);
    expect(deriveKey({ ...base, businessKey: "order_9002" }).key).not.toBe(a.key);
  });

  it("the jcs scheme canonicalises differently (1.0 is 1, non-ASCII raw) and hashes UTF-8", () => {
    const argumentsJson = '{"name": "caf\u00e9", "qty": 1.0}';
    const python = deriveKey({ ...base, argumentsJson });
    const jcs = deriveKey({ ...base, argumentsJson, scheme: "jcs" });
    expect(python.canonical).toBe('{"name":"caf\\u00e9","qty":1.0}');
    expect(jcs.canonical).toBe('{"name":"caf\u00e9","qty":1}');
    expect(jcs.scheme).toBe("jcs");
    expect(jcs.key).toBe(createHash("sha256").update(Buffer.from(jcs.material, "utf8")).digest("hex"));
    expect(jcs.key).not.toBe(python.key);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])(
    "refuses window %s, naming the field",
    (windowSeconds) => {
      expect(() => deriveKey({ ...base, windowSeconds })).toThrow(KeyInputError);
      expect(() => deriveKey({ ...base, windowSeconds })).toThrow(
        /^window: expected a positive whole number of seconds/,
      );
    },
  );

  it("refuses an invalid date, an empty business key, an unknown scheme and a lone surrogate, naming each", () => {
    expect(() => deriveKey({ ...base, at: new Date("nope") })).toThrow(/^at: /);
    expect(() => deriveKey({ ...base, businessKey: "" })).toThrow(/^businessKey: /);
    expect(() => deriveKey({ ...base, scheme: "yaml" as never })).toThrow(/^scheme: /);
    expect(() => deriveKey({ ...base, subject: "u\ud800" })).toThrow(/^subject: .*lone surrogate/);
    expect(() => deriveKey({ ...base, argumentsJson: "{" })).toThrow(/Expecting property name/);
  });

  it("refOf is the key's first 12 hex digits", () => {
    expect(refOf("3f9a1c2b7d4e0011223344556677889900aabbccddeeff00112233445566778")).toBe("3f9a1c2b7d4e");
  });

  it("argumentsJsonOf is JSON.stringify, and refuses what JSON cannot hold", () => {
    expect(argumentsJsonOf({ b: 1, a: [true, null] })).toBe('{"b":1,"a":[true,null]}');
    expect(() => argumentsJsonOf(undefined)).toThrow(/^arguments: /);
    expect(() => argumentsJsonOf({ n: 1n })).toThrow(/^arguments: /);
  });
});

// ---- Cross-check: the writer's own Python computes the same keys. ----

const PYTHON = `
import hashlib, json, sys
out = []
for c in json.loads(sys.stdin.buffer.read().decode("utf-8")):
    canonical = json.dumps(json.loads(c["args"]), sort_keys=True, separators=(",", ":"))
    bucket = c["businessKey"] if c["businessKey"] is not None else int(c["t"]) // c["window"]
    material = f"{c['tenant']}|{c['subject']}|{c['tool']}|{canonical}|{bucket}"
    out.append(hashlib.sha256(material.encode()).hexdigest())
sys.stdout.write(json.dumps(out))
`;

describe("deriveKey against python3", () => {
  it("matches hashlib.sha256(f-string material) for 48 calls, subject None included", (ctx) => {
    const argsTexts = [
      '{"amount_cents": 24000, "card": "c_71"}',
      '{"card":"c_71","amount_cents":24000.0}',
      '{"order": "o_\u00e9\u{1F600}", "items": [{"sku": "A", "qty": 1E0}, {"sku": "\\ud83d\\ude00", "qty": 2}]}',
      '{"big": 123456789012345678901234567890, "tiny": 5e-324, "neg": -0.0, "z": -0}',
      '{"k": "a\\u0000b\\n\\"", "k": "last wins", "nested": {"b": [], "a": {}}}',
      "[]",
    ];
    const subjects = ["user_42", null, "s\u00fcbject \u{1F600}", ""];
    const cases = argsTexts.flatMap((args, i) =>
      subjects.flatMap((subject, j) => {
        const t = 1772366400 + i * 7919 + j * 613 - (i === 5 ? 3_000_000_000 : 0) + 0.25; // one pre-1970
        return [
          {
            tenant: i % 2 ? "acme" : "t\u00e9nant",
            subject,
            tool: "charge_card",
            args,
            t,
            window: [900, 60, 1, 86400][j] ?? 900,
            businessKey: null as string | null,
          },
          { tenant: "acme", subject, tool: "create_shipment", args, t, window: 900, businessKey: `order_${i}_\u00e9` },
        ];
      }),
    );

    const result = spawnSync("python3", ["-c", PYTHON], { input: JSON.stringify(cases), encoding: "utf8" });
    if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT" && process.env.CI !== "true") {
      return ctx.skip("python3 is not installed (CI requires it)");
    }
    expect(result.status, result.stderr).toBe(0);
    const expected = JSON.parse(result.stdout) as string[];

    const ours = cases.map(
      (c) =>
        deriveKey({
          tenant: c.tenant,
          subject: c.subject,
          tool: c.tool,
          argumentsJson: c.args,
          at: new Date(c.t * 1000),
          windowSeconds: c.window,
          businessKey: c.businessKey ?? undefined,
        }).key,
    );
    expect(cases.length).toBe(48);
    expect(new Set(ours).size).toBe(48); // the cases really differ
    expect(ours).toEqual(expected);
  });
});
