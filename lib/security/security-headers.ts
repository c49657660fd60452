/**
 * The response headers every page and API answer carries (SECURITY.md, "Headers"). Pure
 * functions: proxy.ts applies them per request, next.config.ts to the static files and to every
 * API path (API_HEADERS_SOURCE).
 */

/** Headers that never vary by request. */
export const STATIC_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // Support staff paste record links into tickets: the path (a key) may name a customer's
  // payment, so other sites get the origin at most.
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "X-Content-Type-Options": "nosniff",
  // Old browsers' frame-ancestors: the console has buttons that release claims; no clickjacking.
  "X-Frame-Options": "DENY",
  "Permissions-Policy":
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=(), browsing-topics=()",
  "Cross-Origin-Opener-Policy": "same-origin",
};

/**
 * A page's policy. Scripts run only with this request's nonce ('strict-dynamic' lets the
 * framework's own chunks load the rest). Styles: stylesheets from this origin or with the
 * nonce; `style` *attributes* must stay allowed because Recharts and React render them into
 * the server HTML (see tests/browser/security-headers.test.ts, which finds zero violations
 * with this policy); an attribute cannot run script, and img-src/connect-src/font-src keep any
 * url() inside one on this origin.
 */
export function pageContentSecurityPolicy(nonce: string, options: { development?: boolean } = {}): string {
  const directives = [
    "default-src 'self'",
    // React in development reconstructs server stacks with eval; production never does.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${options.development ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    `style-src-elem 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
    "worker-src 'self'",
    "manifest-src 'self'",
  ];
  return directives.join("; ");
}

/** JSON and file downloads load nothing and are never framed. */
export const API_CONTENT_SECURITY_POLICY =
  "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** API answers hold records and payment responses: no shared or browser cache keeps them. */
export const API_CACHE_CONTROL = "no-store";

/**
 * A small JSON answer's (lib/api/json-answer.ts): `no-transform` is what Next's compression honours,
 * and gzip costs more than it saves below a few KiB.
 */
export const SMALL_API_CACHE_CONTROL = "no-store, no-transform";

/** Every API answer's headers. */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  ...STATIC_SECURITY_HEADERS,
  "Content-Security-Policy": API_CONTENT_SECURITY_POLICY,
  "Cache-Control": API_CACHE_CONTROL,
};

/**
 * What next.config.ts gives the console's own API answers: all of API_SECURITY_HEADERS but
 * Cache-Control, which each answer sets itself (a config header would override the answer's).
 */
export const API_ROUTE_HEADERS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(API_SECURITY_HEADERS).filter(([name]) => name !== "Cache-Control"),
);

/** next-auth's answers (sign-in, session, CSRF) get API_SECURITY_HEADERS whole from next.config.ts. */
export const API_AUTH_HEADERS_SOURCE = "/api/auth/:path*";

/**
 * next.config.ts gives every API answer API_ROUTE_HEADERS (and sets Cache-Control on next-auth's): most API requests skip the proxy
 * (its matcher: no `%` in the path, no page-path header), and the ones it answers itself (400
 * bad_path, 401) it gives the same values. Skipping the proxy saves ~1 ms a request
 * (scripts/trivial-route-breakdown.ts).
 */
export const API_HEADERS_SOURCE = "/api/:path*";

/** 128 random bits, base64: what a CSP nonce-source accepts. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
