import { createRequire } from "node:module";
import path from "node:path";
import type { CookiesOptions } from "next-auth";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sessionCookie } from "@/lib/auth/session-cookie";

// next-auth's own defaults (not in its package exports: loaded by path).
const { defaultCookies } = createRequire(import.meta.url)(
  path.resolve("node_modules/next-auth/core/lib/cookie.js"),
) as {
  defaultCookies: (secure: boolean) => CookiesOptions;
};

// The session cookie's attributes are stated in lib/auth, not left to next-auth's defaults; the
// browser test (tests/browser/csrf.test.ts) reads them off a real sign-in over http.
describe("the session cookie", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  it("is Secure, with the __Secure- prefix, when the console's public URL is https", () => {
    expect(sessionCookie("https://idem.example.com")).toEqual({
      sessionToken: {
        name: "__Secure-next-auth.session-token",
        options: { httpOnly: true, sameSite: "lax", path: "/", secure: true },
      },
    });
  });

  it("is HttpOnly and SameSite=Lax but not Secure over plain http (a browser would drop a Secure cookie there)", () => {
    expect(sessionCookie("http://localhost:3000").sessionToken).toEqual({
      name: "next-auth.session-token",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: false },
    });
    expect(sessionCookie(undefined).sessionToken.options.secure).toBe(false);
  });

  it("keeps next-auth's own names, which proxy.ts looks for", () => {
    for (const secure of [true, false]) {
      expect(sessionCookie(secure ? "https://idem.example.com" : "http://localhost").sessionToken.name).toBe(
        defaultCookies(secure).sessionToken.name,
      );
    }
  });

  it("is what the console hands next-auth, read from NEXTAUTH_URL", async () => {
    vi.stubEnv("NEXTAUTH_URL", "https://idem.example.com");
    const { authOptions } = await import("@/lib/auth/auth-options");
    expect(authOptions.cookies?.sessionToken).toEqual({
      name: "__Secure-next-auth.session-token",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: true },
    });
  });
});
