import path from "node:path";
import { defineConfig } from "vitest/config";
import { PlainSummaryReporter } from "./tests/setup/plain-summary-reporter.ts";

const shared = {
  resolve: {
    alias: {
      "@": path.resolve(import.meta.dirname),
      // Next resolves "server-only" to an empty module on the server; so do the tests.
      "server-only": path.resolve(import.meta.dirname, "tests/helpers/empty-module.ts"),
    },
  },
};

export default defineConfig({
  ...shared,
  test: {
    reporters: ["default", new PlainSummaryReporter()],
    projects: [
      {
        ...shared,
        test: {
          name: "node",
          include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts", "tests/cli/**/*.test.ts"],
          globalSetup: ["tests/setup/global-database.ts"],
          setupFiles: ["tests/setup/fresh-environment.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        ...shared,
        test: {
          name: "browser",
          include: ["tests/browser/**/*.test.ts"],
          globalSetup: ["tests/setup/global-console-server.ts"],
          setupFiles: ["tests/setup/fresh-environment.ts", "tests/setup/page-error-guard.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
