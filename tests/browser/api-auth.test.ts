import { describe, expect, inject, it } from "vitest";
import { createToken, revokeToken } from "@/lib/auth/tokens";
import { PAGE_PATH_HEADER } from "@/lib/db/page-path-header";
import { API_CONTENT_SECURITY_POLICY } from "@/lib/security/security-headers";
import { UNCOMPRESSED_BELOW_BYTES } from "@/lib/api/json-answer";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

const baseUrl = inject("baseUrl");
// Once, whole: a small JSON answer adds no-transform (lib/api/json-answer.ts).
const NO_STORE = /^no-store(, no-transform)?$/;
const admin = systemAdmin("api-test", { id: "test" });

describe("the JSON API over HTTP", () => {
  const db = connectTestDb();

  it("answers 401 JSON without credentials, and with a malformed, unknown or revoked token", async () => {
    const { token, summary } = await createToken(db, admin, { name: "api-http", role: "viewer", tenants: ["acme"] });
    const me = (authorization?: string) =>
      fetch(`${baseUrl}/api/v1/me`, { headers: authorization ? { authorization } : {} });

    const ok = await me(`Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ kind: "token", name: "api-http", role: "viewer", tenants: ["acme"] });

    for (const [authorization, message] of [
      [undefined, /Sign in, or send/],
      ["Basic abc", /Authorization must be `Bearer <token>`/],
      ["Bearer idem_unknown", /unknown token/],
    ] as const) {
      const response = await me(authorization);
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/application\/json/);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("unauthenticated");
      expect(body.error.message).toMatch(message);
    }

    await revokeToken(db, admin, summary.id);
    const revoked = await me(`Bearer ${token}`);
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: { message: string } }).error.message).toMatch(/revoked/);
  });

  it("answers the same 401 and headers whether the proxy runs (a `%` in the path) or not", async () => {
    const { token } = await createToken(db, admin, { name: "api-http-proxy", role: "viewer", tenants: ["acme"] });
    // "%73" is "s", "%65" is "e": the same routes, through the proxy (its matcher), which once gated them.
    for (const path of ["/api/v1/records", "/api/v1/record%73", "/api/v1/me", "/api/v1/m%65"]) {
      const anonymous = await fetch(`${baseUrl}${path}`);
      expect(anonymous.status, path).toBe(401);
      expect(await anonymous.json(), path).toEqual({
        error: { code: "unauthenticated", message: "Sign in, or send `Authorization: Bearer <token>`." },
      });
      expect(anonymous.headers.get("cache-control"), path).toMatch(NO_STORE);
    }
    // Signed in, a forged page-path header is what brings the proxy back (Next does not route `m%65` to `me`).
    for (const forged of [{}, { [PAGE_PATH_HEADER]: "/records" }] as Record<string, string>[]) {
      const signedIn = await fetch(`${baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${token}`, ...forged },
      });
      expect(signedIn.status).toBe(200);
      expect(signedIn.headers.get("cache-control")).toMatch(NO_STORE);
      expect(signedIn.headers.get("content-security-policy")).toBe(API_CONTENT_SECURITY_POLICY);
    }
  });

  it("pages redirect anonymous visitors to sign-in, keeping where they were going", async () => {
    const response = await fetch(`${baseUrl}/stuck?tool=charge_card`, { redirect: "manual" });
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe("/sign-in?callbackUrl=%2Fstuck%3Ftool%3Dcharge_card");
  });

  it("leaves small JSON answers uncompressed and gzips large ones, once", async () => {
    const { token } = await createToken(db, admin, { name: "api-http-gzip", role: "viewer" });
    const get = (path: string) =>
      fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, "accept-encoding": "gzip" } });
    for (const path of ["/api/v1/me", "/api/health", "/api/v1/no-such-route"]) {
      const small = await get(path);
      expect(small.headers.get("content-encoding"), path).toBeNull();
      expect(small.headers.get("cache-control"), path).toBe("no-store, no-transform");
      expect((await small.text()).length, path).toBeLessThan(UNCOMPRESSED_BELOW_BYTES);
    }
    // fetch undoes one gzip: a body compressed twice would not parse.
    const large = await get("/api/v1/openapi.json");
    expect(large.headers.get("content-encoding")).toBe("gzip");
    expect(large.headers.get("cache-control")).toBe("no-store");
    expect(((await large.json()) as { openapi: string }).openapi).toMatch(/^3\./);
  });

  it("health answers without credentials and reveals no data", async () => {
    const response = await fetch(`${baseUrl}/api/health`);
    expect(await response.json()).toEqual({ ok: true, database: "reachable" });
  });
});
