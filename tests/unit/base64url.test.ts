import { describe, expect, it } from "vitest";
import { decodeBase64Url, encodeBase64Url } from "@/lib/text/base64url";

describe("the base64url codec", () => {
  it.each(["", "a", "ab", "abc", "2026-11-29T17:26:25.801030Z|0123abcd", "clé ☃ 🎉", "x".repeat(500)])(
    "round-trips %j",
    (text) => {
      const token = encodeBase64Url(text);
      expect(token).toMatch(/^[A-Za-z0-9_-]*$/);
      if (text !== "") expect(decodeBase64Url(token, 10_000)).toBe(text);
    },
  );

  it("writes the URL alphabet without padding, as Node's base64url does", () => {
    for (const text of ["?>?", "ÿþ", "a|1", "\u00fb\u00ff"])
      expect(encodeBase64Url(text)).toBe(Buffer.from(text, "utf8").toString("base64url"));
  });

  it.each([
    ["empty", ""],
    ["the standard alphabet's + and /", "ab+/"],
    ["padding", "YQ=="],
    ["a length base64 cannot have", "abcde"],
    ["bytes that are not UTF-8", Buffer.from([0xff, 0xfe, 0x41]).toString("base64url")],
    ["a token longer than allowed", "A".repeat(101)],
  ])("refuses %s", (_, token) => {
    expect(decodeBase64Url(token, 100)).toBeNull();
  });
});
