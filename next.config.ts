import type { NextConfig } from "next";
import {
  API_AUTH_HEADERS_SOURCE,
  API_HEADERS_SOURCE,
  API_ROUTE_HEADERS,
  API_SECURITY_HEADERS,
  STATIC_SECURITY_HEADERS,
} from "./lib/security/security-headers";
import { gzipLabelRules } from "./lib/api/gzip-accepted";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "pg"],
  poweredByHeader: false,
  // Lets two servers build side by side in one checkout (parallel work, test runs).
  distDir: process.env.IDEM_NEXT_DIST_DIR || ".next",
  typedRoutes: false,
  // Header rules match paths as written: the export's gzip label (lib/api/gzip-accepted.ts) must not
  // reach /API/v1/records/export, which a page answers and does not gzip.
  experimental: { caseSensitiveRoutes: true },
  // The launcher's build (demo, serve, the tests) skips Next's own type check: `npm run typecheck` is the
  // gate (CI runs it before the tests), and a first `npm run demo` is 35 CPU s faster. `npm run build` checks.
  typescript: { ignoreBuildErrors: process.env.IDEM_BUILD_SKIP_TYPECHECK === "1" },
  // proxy.ts gives pages their headers; the static files it skips (its matcher) get them here, and
  // so does every API answer — most API requests skip the proxy too.
  async headers() {
    const asList = (headers: Readonly<Record<string, string>>) =>
      Object.entries(headers).map(([key, value]) => ({ key, value }));
    const headers = asList(STATIC_SECURITY_HEADERS);
    return [
      { source: "/_next/static/:path*", headers },
      { source: "/_next/image", headers },
      { source: "/favicon.ico", headers },
      // The console's own answers set Cache-Control themselves (a small JSON answer adds no-transform: lib/api/json-answer.ts).
      { source: API_HEADERS_SOURCE, headers: asList(API_ROUTE_HEADERS) },
      // The export gzips its own answers at zlib's fastest level (lib/api/gzip-accepted.ts).
      ...gzipLabelRules(),
      { source: API_AUTH_HEADERS_SOURCE, headers: asList(API_SECURITY_HEADERS) },
    ];
  },
};

export default nextConfig;
