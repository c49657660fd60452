import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // PGlite ships WASM and data files that must be loaded from node_modules, not bundled.
  serverExternalPackages: ["@electric-sql/pglite", "@electric-sql/pglite-socket", "pg"],
  poweredByHeader: false,
  // Lets two servers build side by side in one checkout (parallel work, test runs).
  distDir: process.env.IDEM_NEXT_DIST_DIR || ".next",
  typedRoutes: false,
};

export default nextConfig;
