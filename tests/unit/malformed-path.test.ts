import { describe, expect, it } from "vitest";
import { isMalformedPath } from "@/lib/security/malformed-path";
import { MALFORMED_ESCAPES } from "../helpers/bad-inputs";

describe("isMalformedPath", () => {
  it.each(MALFORMED_ESCAPES)("refuses %s (%s)", (_label, escape) => {
    expect(isMalformedPath(`/api/v1/records/${escape}`)).toBe(true);
    expect(isMalformedPath(`/records/${escape}/check`)).toBe(true);
  });

  it.each([
    ["plain", "/records/3f9a1c2b7d4e"],
    ["a hex key", `/api/v1/records/${"ab".repeat(32)}/resolve`],
    ["an encoded space", "/records/a%20b"],
    ["two-byte UTF-8", "/records/%C3%A9"],
    ["four-byte UTF-8", "/records/%F0%9F%98%80"],
    ["an escaped percent", "/records/100%25"],
    ["lower-case hex", "/records/%c3%a9"],
  ])("lets %s through", (_label, path) => {
    expect(isMalformedPath(path)).toBe(false);
  });
});
