import type { NextConfig } from "next";
import { STATIC_SECURITY_HEADERS } from "./lib/security/security-headers";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "pg"],
  poweredByHeader: false,
  // Lets two servers build side by side in one checkout (parallel work, test runs).
  distDir: process.env.IDEM_NEXT_DIST_DIR || ".next",
  typedRoutes: false,
  // proxy.ts gives pages and the API their headers; the build's static files, which it skips, get them here.
  async headers() {
    const headers = Object.entries(STATIC_SECURITY_HEADERS).map(([key, value]) => ({ key, value }));
    return [
      { source: "/_next/static/:path*", headers },
      { source: "/_next/image", headers },
      { source: "/favicon.ico", headers },
    ];
  },
};

export default nextConfig;
