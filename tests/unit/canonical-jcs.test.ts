import { describe, expect, it } from "vitest";
import { canonicalJcs, CanonicalJsonError } from "idem-guard";

/** A double from its IEEE 754 bits, written with 21 significant digits so the parser has work to do. */
function textOfBits(hex: string): string {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0).toExponential(20);
}

describe("canonicalJcs (RFC 8785)", () => {
  it("the RFC's §3.2.2 example", () => {
    const input = `{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\"\\/",
      "literals": [null, true, false]
    }`;
    expect(canonicalJcs(input)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it("the RFC's §3.2.3 sorting example: keys in UTF-16 code unit order, the emoji before U+FB33", () => {
    const input = `{
      "\\u20ac": "Euro Sign",
      "\\r": "Carriage Return",
      "\\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\\ud83d\\ude00": "Emoji: Grinning Face",
      "\\u0080": "Control",
      "\\u00f6": "Latin Small Letter O With Diaeresis"
    }`;
    expect(canonicalJcs(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\u{1F600}":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  // RFC 8785 Appendix B: IEEE 754 bits and the ECMAScript text they must serialise to.
  it.each([
    ["0000000000000000", "0"],
    ["8000000000000000", "0"],
    ["0000000000000001", "5e-324"],
    ["8000000000000001", "-5e-324"],
    ["7fefffffffffffff", "1.7976931348623157e+308"],
    ["ffefffffffffffff", "-1.7976931348623157e+308"],
    ["4340000000000000", "9007199254740992"],
    ["c340000000000000", "-9007199254740992"],
    ["4430000000000000", "295147905179352830000"],
    ["44b52d02c7e14af5", "9.999999999999997e+22"],
    ["44b52d02c7e14af6", "1e+23"],
    ["44b52d02c7e14af7", "1.0000000000000001e+23"],
    ["444b1ae4d6e2ef4e", "999999999999999700000"],
    ["444b1ae4d6e2ef4f", "999999999999999900000"],
    ["444b1ae4d6e2ef50", "1e+21"],
    ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
    ["3eb0c6f7a0b5ed8d", "0.000001"],
    ["41b3de4355555553", "333333333.3333332"],
    ["41b3de4355555554", "333333333.33333325"],
    ["41b3de4355555555", "333333333.3333333"],
    ["41b3de4355555556", "333333333.3333334"],
    ["41b3de4355555557", "333333333.33333343"],
    ["becbf647612f3696", "-0.0000033333333333333333"],
    ["43143ff3c1cb0959", "1424953923781206.2"],
  ])("number with bits %s serialises as %s", (bits, expected) => {
    expect(canonicalJcs(textOfBits(bits))).toBe(expected);
  });

  it.each([
    ["-0.0", "0"],
    ["1.0", "1"],
    ["1E2", "100"],
    ["1e-7", "1e-7"],
    ["0.0000010", "0.000001"],
    ["295147905179352825856", "295147905179352830000"],
    ["18446744073709551617", "18446744073709552000"], // beyond 2^53 an integer is a double, as the RFC says
  ])("number spelled %s serialises as %s", (text, expected) => {
    expect(canonicalJcs(text)).toBe(expected);
  });

  it("escapes only what JSON requires: non-ASCII and DEL stay raw, control characters are \\u00xx or short", () => {
    expect(canonicalJcs('"\\u00e9\u{1F600}\\u007f\\u0001\\u001f\\b\\t\\n\\f\\r\\/"')).toBe(
      '"\u00e9\u{1F600}\u007f\\u0001\\u001f\\b\\t\\n\\f\\r/"',
    );
  });

  it("differs from the Python form exactly where the schemes differ", () => {
    expect(canonicalJcs('{"card": "c_71", "amount_cents": 24000.0, "n": "\u00e9"}')).toBe(
      '{"amount_cents":24000,"card":"c_71","n":"\u00e9"}',
    );
  });

  it.each([
    ['{"a": 1, "a": 2}', /Duplicate key "a".*char 9/],
    ['{"a": 1, "\\u0061": 2}', /Duplicate key "a"/],
    ['["\\ud800"]', /lone surrogate.*char 1/],
    ['"\\udc00x"', /lone surrogate/],
    ["[1e400]", /Number 1e400 is out of range.*char 1/],
    ["NaN", /Expecting value: line 1 column 1 \(char 0\)/],
    ["[-Infinity]", /Expecting value: line 1 column 2 \(char 1\)/],
    ['{"a":1,}', /Expecting property name enclosed in double quotes: line 1 column 8 \(char 7\)/],
  ])("rejects %s", (text, message) => {
    expect(() => canonicalJcs(text)).toThrow(CanonicalJsonError);
    expect(() => canonicalJcs(text)).toThrow(message);
  });
});
