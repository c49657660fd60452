/**
 * Every /api/v1 route module, by its path under app/api/v1, for tests that call a route's handler
 * in-process (Vite needs literal import paths, hence the table). One table: a new route is added here.
 */
const ROUTE_MODULES = {
  records: () => import("@/app/api/v1/records/route"),
  "records/export": () => import("@/app/api/v1/records/export/route"),
  "records/[key]": () => import("@/app/api/v1/records/[key]/route"),
  "records/[key]/check": () => import("@/app/api/v1/records/[key]/check/route"),
  "records/[key]/check-arguments": () => import("@/app/api/v1/records/[key]/check-arguments/route"),
  "records/[key]/resolve": () => import("@/app/api/v1/records/[key]/resolve/route"),
  "records/[key]/reveal": () => import("@/app/api/v1/records/[key]/reveal/route"),
  "records/[key]/allow-repeat": () => import("@/app/api/v1/records/[key]/allow-repeat/route"),
  lookup: () => import("@/app/api/v1/lookup/route"),
  "keys/explain": () => import("@/app/api/v1/keys/explain/route"),
  audit: () => import("@/app/api/v1/audit/route"),
  metrics: () => import("@/app/api/v1/metrics/route"),
  "metrics/prometheus": () => import("@/app/api/v1/metrics/prometheus/route"),
  duplicates: () => import("@/app/api/v1/duplicates/route"),
  me: () => import("@/app/api/v1/me/route"),
  "openapi.json": () => import("@/app/api/v1/openapi.json/route"),
  "bulk/plan": () => import("@/app/api/v1/bulk/plan/route"),
  "bulk/apply": () => import("@/app/api/v1/bulk/apply/route"),
  reconcile: () => import("@/app/api/v1/reconcile/route"),
  "tools/audit": () => import("@/app/api/v1/tools/audit/route"),
  "tools/audit/export": () => import("@/app/api/v1/tools/audit/export/route"),
  "tools/servers": () => import("@/app/api/v1/tools/servers/route"),
  "tools/reviews": () => import("@/app/api/v1/tools/reviews/route"),
  "tools/upload": () => import("@/app/api/v1/tools/upload/route"),
  "tools/refresh": () => import("@/app/api/v1/tools/refresh/route"),
  "tools/verifications": () => import("@/app/api/v1/tools/verifications/route"),
  "[...path]": () => import("@/app/api/v1/[...path]/route"),
} as const;

export type ApiRoutePath = keyof typeof ROUTE_MODULES;
/** The table's paths, for a test that walks app/ to name a route file missing from it. */
export const API_ROUTE_PATHS = Object.keys(ROUTE_MODULES) as ApiRoutePath[];
export type RouteHandler = (
  request: Request,
  context: { params: Promise<Record<string, string>> },
) => Promise<Response>;

/** The handler of `method` at `path`; throws when the route has no such method (a test bug). */
export async function routeHandler(
  path: ApiRoutePath,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS",
): Promise<RouteHandler> {
  const handler = ((await ROUTE_MODULES[path]()) as Record<string, unknown>)[method];
  if (typeof handler !== "function") throw new Error(`no ${method} handler at /api/v1/${path}`);
  return handler as RouteHandler;
}
