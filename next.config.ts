import type { NextConfig } from "next";
import { API_SECURITY_HEADERS, PROXY_FREE_API_PATHS, STATIC_SECURITY_HEADERS } from "./lib/security/security-headers";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "pg"],
  poweredByHeader: false,
  // Lets two servers build side by side in one checkout (parallel work, test runs).
  distDir: process.env.IDEM_NEXT_DIST_DIR || ".next",
  typedRoutes: false,
  // proxy.ts gives pages and the API their headers; the paths it skips (its matcher) get them here.
  async headers() {
    const asList = (headers: Readonly<Record<string, string>>) =>
      Object.entries(headers).map(([key, value]) => ({ key, value }));
    const headers = asList(STATIC_SECURITY_HEADERS);
    return [
      { source: "/_next/static/:path*", headers },
      { source: "/_next/image", headers },
      { source: "/favicon.ico", headers },
      ...PROXY_FREE_API_PATHS.map((source) => ({ source, headers: asList(API_SECURITY_HEADERS) })),
    ];
  },
};

export default nextConfig;
