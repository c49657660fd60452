/**
 * Who reaches what: every page and every route handler (per HTTP method it serves) of app/, against every
 * kind of caller. tests/browser/access-matrix.test.ts reads the routes from app/ itself and fails,
 * naming it, on any route or method that has no row here, and on any row whose route is gone.
 *
 * Columns (IDENTITIES): nobody; a browser session of each role; acme-support@demo.test, a viewer
 * limited to tenant `acme`; a bearer token of each role; a viewer token limited to `acme`; a token of
 * the `metrics` scope (`idem token create --scope metrics`), which may scrape and call nothing else.
 *
 * A cell is what that caller gets for the harmless request tests/access/access-requests.ts makes
 * (a key or a tenant that does not exist, a dry run, a body the route refuses only after it let the caller in):
 *   200, 201, 400, 404 …  the route itself ran and answered this (the request file says what proves it)
 *   401                   no credentials: JSON {error: {code: "unauthenticated"}}
 *   403                   credentials, but the role may not: JSON {error: {code: "forbidden"}}
 *   SIGN_IN               307 to /sign-in?callbackUrl=<the page>
 *   HOME                  307 to / (already signed in)
 *
 * Bearer tokens are for the API: on a page they count as anonymous. Tenant limits do not change
 * who may call what; they change what a call returns (tests/integration/tenant-scoping.test.ts).
 * The role behind each API row is the permission table, lib/auth/permissions.ts.
 */

export const IDENTITIES = [
  "anonymous",
  "viewer",
  "operator",
  "admin",
  "acme viewer",
  "viewer token",
  "operator token",
  "admin token",
  "acme token",
  "metrics token",
] as const;

export type Identity = (typeof IDENTITIES)[number];

export const SIGN_IN = "→ sign-in";
export const HOME = "→ /";

export type Cell = 200 | 201 | 302 | 400 | 401 | 403 | 404 | 503 | typeof SIGN_IN | typeof HOME;
export type Row = readonly [Cell, Cell, Cell, Cell, Cell, Cell, Cell, Cell, Cell, Cell];

// prettier-ignore
export const EXPECTED_ACCESS: Record<string, Row> = {
  //                                        anonymous  viewer   operator admin    acme     viewer   operator admin    acme     metrics
  //                                                   session  session  session  session  token    token    token    token    token
  // Pages: every signed-in role reads every page (actions are refused inside them, and by the API).
  "GET /":                                 [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /records":                          [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /records/[key]":                    [SIGN_IN,   404,     404,     404,     404,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /lookup":                           [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /stuck":                            [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /keys":                             [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /metrics":                          [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /tools":                            [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /audit":                            [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  "GET /duplicates":                       [SIGN_IN,   200,     200,     200,     200,     SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN, SIGN_IN],
  // Open to everyone: signing in, and the page that says a role may not do something.
  "GET /sign-in":                          [200,       HOME,    HOME,    HOME,    HOME,    200,     200,     200,     200,     200],
  "GET /forbidden":                        [200,       200,     200,     200,     200,     200,     200,     200,     200,     200],
  // next-auth's own endpoints (GET: csrf, session, providers; POST: sign-in and sign-out, each behind its own CSRF token).
  "GET /api/auth/[...nextauth]":           [200,       200,     200,     200,     200,     200,     200,     200,     200,     200],
  "POST /api/auth/[...nextauth]":          [302,       302,     302,     302,     302,     302,     302,     302,     302,     302],
  // Liveness for load balancers: no data.
  // Where a page that met a database fault is sent: always 503, for anyone (it names no host and reads nothing).
  "GET /database-unavailable":              [503,       503,     503,     503,     503,     503,     503,     503,     503,     503],
  "GET /api/health":                       [200,       200,     200,     200,     200,     200,     200,     200,     200,     200],

  // The JSON API. Reading, looking up, asking the processor, exporting: every role.
  "GET /api/v1/me":                        [401,       200,     200,     200,     200,     200,     200,     200,     200,     403],
  "GET /api/v1/openapi.json":              [401,       200,     200,     200,     200,     200,     200,     200,     200,     403],
  "GET /api/v1/records":                   [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "GET /api/v1/records/[key]":             [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "GET /api/v1/records/export":            [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "GET /api/v1/lookup":                    [401,       200,     200,     200,     200,     200,     200,     200,     200,     403],
  "POST /api/v1/records/[key]/check":      [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "POST /api/v1/records/[key]/check-arguments": [401, 404,     404,     404,     404,     404,     404,     404,     404,     403],
  "GET /api/v1/keys/explain":              [401,       200,     200,     200,     200,     200,     200,     200,     200,     403],
  // A path no route file matches: the API's JSON 404 once the caller is known (app/api/v1/[...path]).
  "GET /api/v1/[...path]":                 [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "POST /api/v1/[...path]":                [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "PUT /api/v1/[...path]":                 [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "PATCH /api/v1/[...path]":               [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "DELETE /api/v1/[...path]":              [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "OPTIONS /api/v1/[...path]":             [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "GET /api/v1/metrics":                   [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  // The Prometheus scrape: any role, and the one route a metrics token may call.
  "GET /api/v1/metrics/prometheus":        [401,       200,     200,     200,     200,     200,     200,     200,     200,     200],
  "GET /api/v1/duplicates":                [401,       404,     404,     404,     404,     404,     404,     404,     404,     403],
  "GET /api/v1/audit":                     [401,       200,     200,     200,     200,     200,     200,     200,     200,     403],
  "GET /api/v1/tools/audit":               [401,       200,     200,     200,     200,     200,     200,     200,     200,     403],
  "GET /api/v1/tools/audit/export":        [401,       200,     200,     200,     200,     200,     200,     200,     200,     403],
  // Re-listing the MCP servers' tools makes outbound calls: operators and admins.
  "POST /api/v1/tools/refresh":            [401,       403,     200,     200,     403,     403,     200,     200,     403,     403],
  // Resolving claims, one, in bulk, or by the reconciler: operators and admins.
  "POST /api/v1/records/[key]/resolve":    [401,       403,     404,     404,     403,     403,     404,     404,     403,     403],
  // Revealing a masked response (audited): operators and admins.
  "POST /api/v1/records/[key]/reveal":     [401,       403,     404,     404,     403,     403,     404,     404,     403,     403],
  // Ending a completed record's deduplication (the next identical call runs again): operators and admins.
  "POST /api/v1/records/[key]/allow-repeat": [401,     403,     404,     404,     403,     403,     404,     404,     403,     403],
  "POST /api/v1/bulk/plan":                [401,       403,     200,     200,     403,     403,     200,     200,     403,     403],
  "POST /api/v1/bulk/apply":               [401,       403,     200,     200,     403,     403,     200,     200,     403,     403],
  "POST /api/v1/reconcile":                [401,       403,     200,     200,     403,     403,     200,     200,     403,     403],
  // Configuring the tools audit: admins only.
  "POST /api/v1/tools/servers":            [401,       403,     403,     400,     403,     403,     403,     400,     403,     403],
  "POST /api/v1/tools/upload":             [401,       403,     403,     400,     403,     403,     403,     400,     403,     403],
  "POST /api/v1/tools/reviews":            [401,       403,     403,     400,     403,     403,     403,     400,     403,     403],
  // The double-call test makes real side effects: admins only (the request names a server the file does not have).
  "POST /api/v1/tools/verifications":      [401,       403,     403,     400,     403,     403,     403,     400,     403,     403],
};
