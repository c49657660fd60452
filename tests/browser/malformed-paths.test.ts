import { describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import { MALFORMED_ESCAPES } from "../helpers/bad-inputs";
import { systemAdmin } from "../helpers/system-admin";

const baseUrl = inject("baseUrl");
const admin = systemAdmin("malformed-paths", { id: "test" });

// Paths Next.js cannot decode: the API answers 400 JSON, pages the not-found page — each with every
// security header (a bare 500 in plain text had none).
describe("malformed percent escapes in the path", () => {
  const db = connectTestDb();
  const apiPaths = (escape: string) => [
    `/api/v1/records/${escape}`,
    `/api/v1/records/${escape}/check`,
    `/api/v1/records/${escape}/reveal`,
    `/api/v1/records/${escape}/resolve`,
    `/api/v1/${escape}`,
    // The proxy skips API paths without a `%` (its matcher), not these: a `%` anywhere brings it back.
    `/api/health${escape}`,
    `/api/health/${escape}`,
  ];
  const pagePaths = (escape: string) => [`/records/${escape}`, `/${escape}`, `/stuck/${escape}`];

  it.each(MALFORMED_ESCAPES)("the API answers 400 bad_path for %s", async (_label, escape) => {
    const { token } = await createToken(db, admin, {
      name: `malformed-${Math.random().toString(36).slice(2, 8)}`,
      role: "admin",
    });
    for (const path of apiPaths(escape)) {
      for (const method of ["GET", "POST"]) {
        const response = await fetch(`${baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: method === "POST" ? "{}" : undefined,
        });
        const context = `${method} ${path}`;
        expect(response.status, context).toBe(400);
        expect(response.headers.get("content-type"), context).toMatch(/application\/json/);
        expect(await response.json(), context).toEqual({
          error: { code: "bad_path", message: expect.stringMatching(/malformed percent escape/) },
        });
        expect(response.headers.get("x-content-type-options"), context).toBe("nosniff");
        expect(response.headers.get("content-security-policy"), context).toContain("default-src 'none'");
        expect(response.headers.get("cache-control"), context).toMatch(/no-store/);
      }
    }
  });

  it.each(MALFORMED_ESCAPES)("a page answers the not-found page for %s", async (_label, escape) => {
    for (const path of pagePaths(escape)) {
      const response = await fetch(`${baseUrl}${path}`, { redirect: "manual" });
      const text = await response.text();
      expect(response.status, path).toBe(404);
      expect(response.headers.get("content-type"), path).toMatch(/text\/html/);
      expect(text, path).toContain("Nothing here");
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("content-security-policy"), path).toMatch(/script-src 'self' 'nonce-/);
    }
  });
});
