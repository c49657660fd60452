import { NextResponse, type NextRequest } from "next/server";
import { env } from "@/lib/config/environment";
import { PAGE_PATH_HEADER } from "@/lib/db/page-path-header";
import { isMalformedPath } from "@/lib/security/malformed-path";
import { loopbackAliasRedirect } from "@/lib/security/loopback-alias";
import {
  API_SECURITY_HEADERS,
  STATIC_SECURITY_HEADERS,
  newNonce,
  pageContentSecurityPolicy,
} from "@/lib/security/security-headers";

// An optimistic first gate only: no session cookie and no bearer token → sign-in page or a
// 401 JSON. Every page, route handler and action still checks the caller itself.
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];

// Paths the gate lets through without a session: sign-in, next-auth's own routes, health,
// forbidden, the tab icon. (Pages among them still need the proxy for their nonce and CSP.)
const UNGATED = /^\/(?:sign-in|forbidden|database-unavailable$|api\/auth|api\/health|_malformed-path$|icon\.svg$)/;

/** No route lives here, so a rewrite to it renders the not-found page with its 404. */
const MALFORMED_PAGE = "/_malformed-path";

export function proxy(request: NextRequest) {
  const { pathname } = request.nextUrl;
  const isApi = pathname.startsWith("/api/");
  const malformed = isMalformedPath(pathname);
  if (isApi) {
    const answer = malformed
      ? NextResponse.json(
          {
            error: {
              code: "bad_path",
              message: "The request path holds a malformed percent escape or bytes that are not UTF-8.",
            },
          },
          { status: 400 },
        )
      : (gate(request) ??
        // Only a forged page-path header needs the request rewritten; the common case passes as it came.
        (request.headers.has(PAGE_PATH_HEADER)
          ? NextResponse.next({ request: { headers: withoutPagePath(request.headers) } })
          : NextResponse.next()));
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) answer.headers.set(name, value);
    return answer;
  }

  // Next.js reads the nonce from the request's CSP header and puts it on its own scripts.
  const nonce = newNonce();
  const policy = pageContentSecurityPolicy(nonce, { development: env().NODE_ENV === "development" });
  // Reached as 127.0.0.1 when the public URL says localhost (or the other way round): go to the public name.
  const canonical =
    request.method === "GET" || request.method === "HEAD"
      ? loopbackAliasRedirect(env().NEXTAUTH_URL, request.headers.get("host"), `${pathname}${request.nextUrl.search}`)
      : null;
  if (canonical) return withHeaders(toPublicName(canonical), policy);

  const requestHeaders = withoutPagePath(request.headers);
  requestHeaders.set("content-security-policy", policy);
  // A page render that finds the database down sends its reader to the 503 page and back here (lib/db/page-fault.ts).
  if (request.method === "GET") requestHeaders.set(PAGE_PATH_HEADER, `${pathname}${request.nextUrl.search}`);
  requestHeaders.set("x-nonce", nonce);
  // A path Next.js cannot decode would be a bare 500: it is a page that does not exist.
  if (malformed)
    return withHeaders(
      NextResponse.rewrite(new URL(MALFORMED_PAGE, request.url), { request: { headers: requestHeaders } }),
      policy,
    );
  return withHeaders(gate(request) ?? NextResponse.next({ request: { headers: requestHeaders } }), policy);
}

/** The sign-in redirect or 401 for a request with no credentials at all; null to go on. */
function gate(request: NextRequest): NextResponse | null {
  const { pathname, search } = request.nextUrl;
  if (UNGATED.test(pathname)) return null;
  const hasSession = SESSION_COOKIES.some((name) => request.cookies.has(name));
  if (pathname.startsWith("/api/v1/")) {
    if (hasSession || request.headers.has("authorization")) return null;
    return NextResponse.json(
      { error: { code: "unauthenticated", message: "Sign in, or send `Authorization: Bearer <token>`." } },
      { status: 401 },
    );
  }
  if (hasSession) return null;
  const signIn = new URL("/sign-in", request.url);
  signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
  return NextResponse.redirect(signIn);
}

/**
 * To the public name by a Refresh header and a link, not a 3xx: Next.js rewrites a Location on its
 * own host to a bare path, which the browser would resolve against the name it came by, again.
 */
function toPublicName(url: string): NextResponse {
  const html = `<!doctype html><html lang="en"><title>Idem Console</title><p>Idem Console is at <a href="${escapeHtml(url)}">${escapeHtml(url)}</a>.</p></html>`;
  return new NextResponse(html, {
    status: 200,
    headers: { "content-type": "text/html; charset=utf-8", refresh: `0; url=${url}`, "cache-control": "no-store" },
  });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The request's headers less the page-path header, which only this proxy may set. */
function withoutPagePath(headers: Headers): Headers {
  const copy = new Headers(headers);
  copy.delete(PAGE_PATH_HEADER);
  return copy;
}

function withHeaders(response: NextResponse, policy: string): NextResponse {
  response.headers.set("Content-Security-Policy", policy);
  for (const [name, value] of Object.entries(STATIC_SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}

export const config = {
  // Everything but the build's static files and the API paths that need nothing from the proxy
  // (next.config.ts gives both their headers; SECURITY.md, "Response headers"). Running the proxy
  // costs ~1 ms a request (scripts/trivial-route-breakdown.ts). An API path skips it when it holds
  // no `%` — a malformed escape or non-UTF-8 byte can only arrive percent-encoded, so there is no
  // bad_path to answer — and no page-path header to strip (the second entry brings those back:
  // lib/db/client.ts reads that header on every query's failure). The 401 gate is not needed
  // there: apiRoute (lib/api/api-route.ts) answers a caller with no credentials the same 401
  // before any work, and /api/auth and /api/health are ungated anyway.
  // Literals: Next reads the matcher from the source at build time; the header is PAGE_PATH_HEADER.
  matcher: [
    "/((?!_next/static|_next/image|favicon.ico|api/[A-Za-z0-9._~/-]*$).*)",
    { source: "/api/:path*", has: [{ type: "header", key: "x-idem-page-path" }] },
  ],
};
