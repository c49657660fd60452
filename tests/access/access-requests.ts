import type { Identity } from "./expected-access";

/** What came back, read once. */
export type Answer = { status: number; location: string | null; contentType: string; text: string };

/**
 * How the access matrix calls one route: a harmless request (nothing it does changes a record),
 * and what in the answer proves the route itself ran — not a proxy, a layout or Next's own 404.
 * `ran` returns null when convinced, else what is missing.
 */
export type AccessRequest = {
  path: string;
  body?: string;
  contentType?: string;
  ran: (answer: Answer, identity: Identity) => string | null;
};

export type MatrixFixtures = {
  /** A well-formed key no record has. */
  missingKey: string;
  /** A tenant name nobody uses. */
  noSuchTenant: string;
  /** Names this run's throwaway server in the tools audit (never stored: the requests are refused). */
  run: string;
};

export function roleOf(identity: Identity): "viewer" | "operator" | "admin" {
  if (identity.startsWith("admin")) return "admin";
  if (identity.startsWith("operator")) return "operator";
  return "viewer";
}

function parseJson(answer: Answer): unknown {
  if (!answer.contentType.includes("json")) return undefined;
  try {
    return JSON.parse(answer.text);
  } catch {
    return undefined;
  }
}

/** The answer is JSON and `check` holds for it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a check reads whatever JSON the route answered
function json(describe: string, check: (body: any) => boolean) {
  return (answer: Answer) => {
    const body = parseJson(answer);
    try {
      if (body !== undefined && check(body)) return null;
    } catch {
      // fall through: the shape was not there
    }
    return `expected JSON with ${describe}, got ${answer.contentType || "no content type"}: ${answer.text.slice(0, 200)}`;
  };
}

/** An HTML page with this document title (set by the page's own metadata). */
function page(title: string) {
  const expected = `<title>${title}</title>`;
  return (answer: Answer) =>
    answer.contentType.includes("text/html") && answer.text.includes(expected)
      ? null
      : `expected an HTML page titled ${JSON.stringify(title)}`;
}

const errorCode = (code: string) => json(`error.code ${code}`, (b) => b.error.code === code);

export function accessRequests({ missingKey, noSuchTenant, run }: MatrixFixtures): Record<string, AccessRequest> {
  const missingRef = missingKey.slice(0, 12);
  const form = "application/json";
  return {
    "GET /": { path: "/", ran: page("Idem Console") },
    "GET /records": { path: `/records?tenant=${noSuchTenant}`, ran: page("Records · Idem Console") },
    "GET /records/[key]": {
      path: `/records/${missingKey}`,
      ran: (a) =>
        a.text.includes("Nothing here") && a.text.includes("not yours to see")
          ? null
          : "expected the console's not-found page",
    },
    "GET /lookup": { path: `/lookup?q=${encodeURIComponent(`ref ${missingRef}`)}`, ran: page("Lookup · Idem Console") },
    "GET /stuck": { path: "/stuck", ran: page("Stuck · Idem Console") },
    "GET /keys": { path: "/keys", ran: page("Keys · Idem Console") },
    "GET /metrics": { path: `/metrics?window=1h&tenant=${noSuchTenant}`, ran: page("Metrics · Idem Console") },
    "GET /tools": { path: "/tools", ran: page("Tools · Idem Console") },
    "GET /audit": { path: `/audit?key=${missingKey}`, ran: page("Audit · Idem Console") },
    "GET /duplicates": {
      path: `/duplicates?tenant=${noSuchTenant}`,
      ran: page("Duplicates that got through · Idem Console"),
    },
    "GET /sign-in": { path: "/sign-in", ran: page("Sign in · Idem Console") },
    "GET /forbidden": { path: "/forbidden", ran: page("Not allowed · Idem Console") },

    "GET /api/auth/[...nextauth]": {
      path: "/api/auth/csrf",
      ran: json("a csrfToken", (b) => typeof b.csrfToken === "string" && b.csrfToken.length > 20),
    },
    // No CSRF token: next-auth sends the caller to its sign-out page and signs nobody out.
    "POST /api/auth/[...nextauth]": {
      path: "/api/auth/signout",
      body: "",
      contentType: "application/x-www-form-urlencoded",
      ran: (a) =>
        a.location !== null && new URL(a.location, "http://x").pathname === "/api/auth/signout"
          ? null
          : `expected a redirect to /api/auth/signout, got ${a.location}`,
    },
    "GET /database-unavailable": {
      path: "/database-unavailable?from=%2Frecords",
      ran: page("Database unavailable · Idem Console"),
    },
    "GET /api/health": { path: "/api/health", ran: json("{ok: true}", (b) => b.ok === true) },

    "GET /api/v1/me": {
      path: "/api/v1/me",
      ran: (a, identity) =>
        json(
          `role ${roleOf(identity)}`,
          (b) =>
            b.role === roleOf(identity) &&
            b.kind === (identity.endsWith("token") ? "token" : "user") &&
            (identity.startsWith("acme") ? b.tenants.join() === "acme" : b.tenants.length === 0),
        )(a),
    },
    "GET /api/v1/openapi.json": {
      path: "/api/v1/openapi.json",
      ran: json("openapi: 3.1.0", (b) => b.openapi === "3.1.0"),
    },
    ...Object.fromEntries(
      ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].map((method) => [
        `${method} /api/v1/[...path]`,
        {
          path: "/api/v1/no-such-route/at-all",
          body: method === "GET" || method === "OPTIONS" ? undefined : "{}",
          contentType: method === "GET" || method === "OPTIONS" ? undefined : form,
          ran: errorCode("not_found"),
        },
      ]),
    ),
    // A tenant nobody uses is answered by the route's own tenant check, after the role check.
    "GET /api/v1/records": { path: `/api/v1/records?tenant=${noSuchTenant}`, ran: errorCode("unknown_tenant") },
    "GET /api/v1/records/[key]": { path: `/api/v1/records/${missingKey}`, ran: errorCode("not_found") },
    "GET /api/v1/records/export": {
      path: `/api/v1/records/export?format=json&tenant=${noSuchTenant}`,
      ran: errorCode("unknown_tenant"),
    },
    "GET /api/v1/lookup": {
      path: `/api/v1/lookup?q=${encodeURIComponent(`ref ${missingRef}`)}`,
      ran: json("matches: []", (b) => b.refs.includes(missingRef) && b.matches.length === 0),
    },
    "POST /api/v1/records/[key]/check": {
      path: `/api/v1/records/${missingKey}/check`,
      body: "",
      ran: errorCode("not_found"),
    },
    // A valid body, so the refusal is the record look-up's (after the role check), not the body's.
    "POST /api/v1/records/[key]/check-arguments": {
      path: `/api/v1/records/${missingKey}/check-arguments`,
      body: JSON.stringify({ args: "{}" }),
      ran: errorCode("not_found"),
    },
    "GET /api/v1/keys/explain": {
      path: `/api/v1/keys/explain?tenant=${noSuchTenant}&tool=charge_card&args=${encodeURIComponent('{"amount_cents":100}')}&at=2026-01-01T00:00:00Z`,
      ran: json("a derived key and its buckets", (b) => /^[0-9a-f]{64}$/.test(b.derived.key) && b.buckets.length === 3),
    },
    "GET /api/v1/metrics": {
      path: `/api/v1/metrics?window=1h&tenant=${noSuchTenant}`,
      ran: errorCode("unknown_tenant"),
    },
    "GET /api/v1/metrics/prometheus": {
      path: "/api/v1/metrics/prometheus",
      ran: (answer) =>
        answer.contentType.startsWith("text/plain") && answer.text.includes("# HELP idem_claims_in_progress ")
          ? null
          : `expected the Prometheus exposition, got ${answer.contentType || "no content type"}: ${answer.text.slice(0, 200)}`,
    },
    "GET /api/v1/duplicates": {
      path: `/api/v1/duplicates?window=1h&tenant=${noSuchTenant}`,
      ran: errorCode("unknown_tenant"),
    },
    "GET /api/v1/audit": {
      path: `/api/v1/audit?key=${missingKey}`,
      ran: json("entries: []", (b) => Array.isArray(b.entries) && b.entries.length === 0),
    },
    "GET /api/v1/tools/audit": {
      path: "/api/v1/tools/audit?window=24h",
      ran: json("tools: [...]", (b) => Array.isArray(b.tools)),
    },
    "GET /api/v1/tools/audit/export": {
      path: "/api/v1/tools/audit/export?format=json&window=24h",
      ran: json("tools: [...]", (b) => Array.isArray(b.tools)),
    },
    "POST /api/v1/tools/refresh": {
      path: "/api/v1/tools/refresh",
      body: "",
      ran: json("listings and an auditId", (b) => Array.isArray(b.listings) && typeof b.auditId === "string"),
    },

    "POST /api/v1/records/[key]/resolve": {
      path: `/api/v1/records/${missingKey}/resolve`,
      body: JSON.stringify({
        action: "complete",
        reason: "access matrix: a key that does not exist",
        expectedUpdatedAt: null,
      }),
      contentType: form,
      ran: errorCode("not_found"),
    },
    "POST /api/v1/records/[key]/reveal": {
      path: `/api/v1/records/${missingKey}/reveal`,
      body: JSON.stringify({ reason: "access matrix: a key that does not exist" }),
      contentType: form,
      ran: errorCode("not_found"),
    },
    "POST /api/v1/records/[key]/allow-repeat": {
      path: `/api/v1/records/${missingKey}/allow-repeat`,
      body: JSON.stringify({ reason: "access matrix: a key that does not exist", expectedUpdatedAt: null }),
      contentType: form,
      ran: errorCode("not_found"),
    },
    "POST /api/v1/bulk/plan": {
      path: "/api/v1/bulk/plan",
      body: JSON.stringify({ keys: [missingKey] }),
      contentType: form,
      ran: json(
        "the key planned as missing",
        (b) =>
          b.rows.length === 1 &&
          b.rows[0].key === missingKey &&
          b.rows[0].status === null &&
          b.rows[0].proposed === "leave",
      ),
    },
    "POST /api/v1/bulk/apply": {
      path: "/api/v1/bulk/apply",
      body: JSON.stringify({
        reason: "access matrix: a key that does not exist",
        rows: [{ key: missingKey, action: "complete", expectedUpdatedAt: null }],
      }),
      contentType: form,
      ran: json(
        "the row reported gone",
        (b) =>
          b.results.length === 1 && b.results[0].key === missingKey && /no longer exists/.test(b.results[0].message),
      ),
    },
    "POST /api/v1/reconcile": {
      path: "/api/v1/reconcile",
      body: JSON.stringify({ filter: { keys: [missingKey] }, dryRun: true }),
      contentType: form,
      ran: json("a dry run", (b) => b.dryRun === true),
    },
    "POST /api/v1/tools/servers": {
      path: "/api/v1/tools/servers",
      body: JSON.stringify({ name: `access-matrix-${run}`, transport: "stdio", command: "true" }),
      contentType: form,
      ran: json(
        "the stdio refusal",
        (b) => b.error.code === "bad_request" && /stdio server runs a command/.test(b.error.message),
      ),
    },
    "POST /api/v1/tools/upload": {
      path: `/api/v1/tools/upload?server=access-matrix-${run}`,
      body: "this is not a tools/list result",
      contentType: form,
      ran: errorCode("bad_listing"),
    },
    "POST /api/v1/tools/verifications": {
      path: "/api/v1/tools/verifications",
      body: JSON.stringify({ server: `access-matrix-${run}`, tool: "t", arguments: {} }),
      contentType: form,
      ran: errorCode("bad_server"),
    },
    "POST /api/v1/tools/reviews": {
      path: "/api/v1/tools/reviews",
      body: JSON.stringify({ server: `access-matrix-${run}`, tool: "t", reason: "short" }),
      contentType: form,
      ran: json(
        "the reason refused",
        (b) => b.error.code === "bad_request" && b.error.fields.some((f: { field: string }) => f.field === "reason"),
      ),
    },
  };
}
