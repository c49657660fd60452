import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { describe, expect, it } from "vitest";
import { PAGE_PATH_HEADER } from "@/lib/db/page-path-header";
import { config } from "@/proxy";
import { MALFORMED_ESCAPES } from "../helpers/bad-inputs";

const runs = (path: string, headers: Record<string, string> = {}) =>
  unstable_doesMiddlewareMatch({ config, url: `http://localhost${path}`, headers });

describe("proxy.ts matcher", () => {
  it.each([
    "/api/health",
    "/api/v1/me",
    "/api/v1/records",
    `/api/v1/records/${"ab".repeat(32)}/resolve`,
    "/api/auth/session",
    "/api/v1/records?q=a%ZZ",
  ])("skips %s (no `%` in its path: nothing the proxy would refuse)", (path) => expect(runs(path)).toBe(false));

  it.each(MALFORMED_ESCAPES)("runs on an API path holding %s", (_label, escape) => {
    expect(runs(`/api/v1/records/${escape}`)).toBe(true);
    expect(runs(`/api/health${escape}`)).toBe(true);
  });

  it.each(["/api/v1/records/a%20b", "/api/v1/m%65", "/api/v1/records/a:b"])(
    "runs on %s (characters outside the skip list)",
    (path) => expect(runs(path)).toBe(true),
  );

  it("runs on an API request carrying a page-path header, to strip it", () => {
    expect(PAGE_PATH_HEADER).toBe("x-idem-page-path"); // the matcher's literal
    expect(runs("/api/v1/me", { [PAGE_PATH_HEADER]: "/records" })).toBe(true);
  });

  it.each(["/", "/records", "/sign-in", "/records/3f9a1c2b7d4e/check", "/apix", "/api"])(
    "runs on the page %s",
    (path) => expect(runs(path)).toBe(true),
  );

  it.each(["/_next/static/chunks/a.js", "/favicon.ico"])("skips the static file %s", (path) =>
    expect(runs(path)).toBe(false),
  );
});
