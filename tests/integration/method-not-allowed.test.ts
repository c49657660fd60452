import { createHash, randomBytes } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { ROUTE_METHODS } from "@/lib/api/method-not-allowed";
import { createToken } from "@/lib/auth/tokens";
import { listAppRoutes } from "../access/app-routes";
import { API_ROUTE_PATHS, routeHandler, type ApiRoutePath } from "../helpers/api-routes";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// A method a /api/v1 route file does not serve is answered by the file itself (methodsNotAllowed,
// lib/api/method-not-allowed.ts), not by Next's empty 405: the same 401 as every route without
// credentials, then a JSON 405 method_not_allowed with Allow. Every route file is read from app/,
// so a new one that forgets its refusals fails here.
process.env.DATABASE_URL = inject("databaseUrl");

const run = randomBytes(3).toString("hex");
const KEY = createHash("sha256").update(`method-not-allowed|${run}`).digest("hex");
const system = systemAdmin("method-not-allowed-test");

// The catch-all answers every method of paths no route file has (api-contract.test.ts).
const routes = listAppRoutes().filter(
  (r) => r.kind === "route" && r.pattern.startsWith("/api/v1/") && r.pattern !== "/api/v1/[...path]",
);

/** The URL path and params of a call to this route: each dynamic segment a key that does not exist. */
function target(pattern: string) {
  const params: Record<string, string> = {};
  const path = pattern.replace(/\[(\w+)\]/g, (_, name: string) => (params[name] = KEY));
  return { path, params, module: pattern.replace(/^\/api\/v1\//, "") as ApiRoutePath };
}

describe("a method a /api/v1 route does not serve: the API's JSON 405", () => {
  const db = connectTestDb();
  let adminToken = "";

  beforeAll(async () => {
    adminToken = (await createToken(db, system, { name: `method-not-allowed-${run}`, role: "admin" })).token;
  });

  it("every route file serves or refuses each of GET, POST, PUT, PATCH, DELETE", () => {
    expect(routes.length).toBeGreaterThan(20); // the walk found the app
    const incomplete = routes
      .filter((r) => [...r.methods, ...r.refused].sort().join() !== [...ROUTE_METHODS, "OPTIONS"].sort().join())
      .map(
        (r) => `${r.file}: serves ${r.methods.join(", ") || "nothing"}, refuses ${r.refused.join(", ") || "nothing"}`,
      );
    expect(incomplete, `add \`export const { … } = methodsNotAllowed(…)\` to: ${incomplete.join("; ")}`).toEqual([]);
    const untabled = routes.map((r) => target(r.pattern).module).filter((m) => !API_ROUTE_PATHS.includes(m));
    expect(untabled, "route modules missing from tests/helpers/api-routes.ts").toEqual([]);
  });

  it("each refused method: 401 without credentials, else 405 method_not_allowed naming what the route serves", async () => {
    const failures: string[] = [];
    let calls = 0;
    for (const route of routes) {
      const { path, params, module } = target(route.pattern);
      const allow = [...route.methods, ...(route.methods.includes("GET") ? ["HEAD"] : [])].sort();
      // OPTIONS: behind the same 401, then the true Allow (Next's own would list the refusals too).
      const optionsHandler = await routeHandler(module, "OPTIONS");
      const options = (authorization: string) =>
        optionsHandler(new Request(`http://console.test${path}`, { method: "OPTIONS", headers: { authorization } }), {
          params: Promise.resolve(params),
        });
      const anonymousOptions = await options("Basic not-a-bearer-token");
      if (anonymousOptions.status !== 401)
        failures.push(`OPTIONS ${route.pattern} without credentials: ${anonymousOptions.status}`);
      const allowed = await options(`Bearer ${adminToken}`);
      if (allowed.status !== 204 || allowed.headers.get("allow") !== [...allow, "OPTIONS"].join(", "))
        failures.push(`OPTIONS ${route.pattern}: ${allowed.status}, Allow ${allowed.headers.get("allow")}`);
      for (const method of route.refused.filter((m) => m !== "OPTIONS") as (typeof ROUTE_METHODS)[number][]) {
        const handler = await routeHandler(module, method);
        const call = (authorization: string) =>
          handler(new Request(`http://console.test${path}`, { method, headers: { authorization } }), {
            params: Promise.resolve(params),
          });
        const where = `${method} ${route.pattern}`;
        calls += 2;

        // In-process there is no session to fall back on: an Authorization that is not a bearer token.
        const anonymous = await call("Basic not-a-bearer-token");
        const anonymousBody = (await anonymous.json().catch(() => null)) as { error?: { code?: string } } | null;
        if (anonymous.status !== 401 || anonymousBody?.error?.code !== "unauthenticated")
          failures.push(`${where} without credentials: ${anonymous.status} ${JSON.stringify(anonymousBody)}`);

        const refused = await call(`Bearer ${adminToken}`);
        const type = refused.headers.get("content-type") ?? "";
        const body: unknown = await refused.json().catch(() => null);
        const expected = {
          error: {
            code: "method_not_allowed",
            message: `${method} is not allowed on ${path}; it answers ${route.methods.join(", ")}.`,
          },
        };
        const problems = [
          refused.status !== 405 && `status ${refused.status}`,
          !type.startsWith("application/json") && `content-type ${type}`,
          (refused.headers.get("allow") ?? "").split(", ").sort().join() !== allow.join() &&
            `Allow ${refused.headers.get("allow")}, expected ${allow.join(", ")}`,
          !isDeepStrictEqual(body, expected) && `body ${JSON.stringify(body)}`,
        ].filter(Boolean);
        if (problems.length > 0) failures.push(`${where}: ${problems.join("; ")}`);
      }
    }
    console.log(`method not allowed: ${calls} calls over ${routes.length} route files`);
    expect(calls).toBeGreaterThan(0);
    expect(failures, failures.join("\n")).toEqual([]);
  });
});
