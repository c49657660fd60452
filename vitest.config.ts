import path from "node:path";
import { configDefaults, defineConfig } from "vitest/config";
import { PlainSummaryReporter } from "./tests/setup/plain-summary-reporter.ts";

const shared = {
  resolve: {
    alias: [
      { find: /^@\//, replacement: `${path.resolve(import.meta.dirname)}/` },
      // The workspace's writer kit from its source, as tsconfig.json's paths say (the tarball test uses dist).
      { find: /^idem-guard$/, replacement: path.resolve(import.meta.dirname, "packages/guard/src/index.ts") },
      { find: /^idem-guard\/mcp$/, replacement: path.resolve(import.meta.dirname, "packages/guard/src/mcp/index.ts") },
      // Next resolves "server-only" to an empty module on the server; so do the tests.
      { find: /^server-only$/, replacement: path.resolve(import.meta.dirname, "tests/helpers/empty-module.ts") },
    ],
  },
};

/** The integration files that call the API's route handlers in-process on the run's database. */
const API_INTEGRATION_FILES = [
  "annotation-audit",
  "api-contract",
  "audit-list",
  "bad-input-api",
  "lookup-detail-api",
  "lookup-ticket-api",
  "method-not-allowed",
  "mutation-audit",
  "records-subject-api",
  "ref-fate",
  "resolve-api",
  "tenant-scoping",
  "unknown-tenant",
  "value-masking",
  // Its own PgBouncer with one server connection: what a request leaves behind on it.
  "pooled-session-state",
].map((name) => `tests/integration/${name}.test.ts`);

/**
 * The browser files that start consoles of their own (their own database, data directory and port) and
 * never use the shared one: `npm test` runs them in a vitest run of their own, beside the other two.
 */
const OWN_CONSOLE_FILES = [
  "database-faults",
  "embedded-concurrency",
  "many-consoles",
  "oidc-sign-in",
  "records-demo-facets",
  "replica-lag",
].map((name) => `tests/browser/${name}.test.ts`);

const browserTest = {
  setupFiles: ["tests/setup/fresh-environment.ts", "tests/setup/page-error-guard.ts"],
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // A page's answer to a click is a server round trip: vitest's 1 s poll default failed on a slow CI host.
  expect: { poll: { timeout: 10_000, interval: 100 } },
};

export default defineConfig({
  ...shared,
  test: {
    reporters: ["default", new PlainSummaryReporter()],
    projects: [
      {
        ...shared,
        test: {
          // No database, no browser, no module state between files: every file in one process per worker
          // (a fork per file cost as much as the tests themselves, docs/test-time.md).
          name: "unit",
          include: ["tests/unit/**/*.test.ts"],
          isolate: false,
          setupFiles: ["tests/setup/fresh-environment.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        ...shared,
        test: {
          name: "node",
          include: [
            "tests/integration/**/*.test.ts",
            "tests/cli/**/*.test.ts",
            // Real processes killed at each step of each mutation path (docs/crash-tests.md).
            "tests/crash/**/*.test.ts",
          ],
          exclude: [
            ...configDefaults.exclude,
            "tests/integration/pooled-session-state.test.ts",
            // What `npm test` (scripts/run-tests.mjs) runs on its own, after the rest.
            ...(process.env.IDEM_TEST_EXCLUDE ?? "").split(",").filter(Boolean),
          ],
          globalSetup: ["tests/setup/global-database.ts"],
          setupFiles: ["tests/setup/fresh-environment.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        ...shared,
        test: {
          // The API integration files again, every connection through PgBouncer in transaction mode.
          name: "pgbouncer",
          include: API_INTEGRATION_FILES,
          globalSetup: ["tests/setup/global-pgbouncer.ts"],
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
          exclude: [
            ...configDefaults.exclude,
            ...OWN_CONSOLE_FILES,
            // What `npm test` runs on its own, after the own-console and long node files.
            ...(process.env.IDEM_TEST_EXCLUDE ?? "").split(",").filter(Boolean),
          ],
          globalSetup: ["tests/setup/global-console-server.ts"],
          ...browserTest,
          // One shared console and database: one file at a time.
          fileParallelism: false,
          // The files keep no module state a later file reads (their clients and browsers are their own):
          // one process for all of them, not a fork per file (docs/test-time.md, "Stop 54").
          isolate: false,
        },
      },
      {
        ...shared,
        test: { name: "own-console", include: OWN_CONSOLE_FILES, ...browserTest },
      },
    ],
  },
});
