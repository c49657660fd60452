/**
 * The console's rooms and the doors between them (see docs/architecture.md, "Rooms and doors").
 * `npm run lint:deps` checks them, with .dependency-cruiser-runtime.cjs (the rules judged on what
 * runs, type imports left out); tests/unit/dependency-rules.test.ts runs both inside `npm test`,
 * so a change that opens a forbidden door fails the suite.
 *
 * Type-only imports count here (tsPreCompilationDeps): a cycle through types is still a cycle.
 */

/** Modules reachable from a request (pages, route handlers, the proxy, server instrumentation). */
const REQUEST_PATH = "^(app|components)/|^proxy\\.ts$|^instrumentation\\.ts$";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-folder-cycles",
      comment: "A room may lean on a lower room, never on one that leans back on it.",
      severity: "error",
      scope: "folder",
      from: { path: "^(lib|app|components|tools)" },
      to: { circular: true },
    },
    {
      name: "no-module-cycles",
      comment: "Two files that import each other are one file in two pieces, or a missing lower piece.",
      severity: "error",
      from: { pathNot: "^generated/" },
      to: { circular: true },
    },
    {
      name: "app-not-to-db",
      comment: "Routes reach the database through lib/<domain>, which reaches lib/db: app → lib/<domain> → lib/db.",
      severity: "error",
      from: { path: "^app/" },
      to: { path: "^lib/db/" },
    },
    {
      name: "components-not-to-db",
      comment: "UI pieces take data as props; they never open the database.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^lib/db/" },
    },
    {
      name: "components-not-to-prisma",
      comment:
        "Prisma's client is server code; a component that pulls it in ships it to the browser or breaks the build.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^generated/|^node_modules/(@prisma|prisma)/" },
    },
    {
      name: "guard-stands-alone",
      comment:
        "packages/guard (idem-guard) is what writers install alone: it imports itself, Node and the MCP SDK, nothing of the console.",
      severity: "error",
      from: { path: "^packages/guard/" },
      to: {
        pathNot: "^packages/guard/|^node_modules/(@modelcontextprotocol/sdk|zod)/",
        dependencyTypesNot: ["core"],
      },
    },
    {
      name: "console-uses-guard-by-name",
      comment:
        "The console, the CLI, the demo and the bench take the guard as writers do: `idem-guard`, its exports only.",
      severity: "error",
      from: { path: "^(lib|app|components|tools)/" },
      to: { path: "^packages/guard/src/(?!index\\.ts$|mcp/index\\.ts$)" },
    },
    {
      name: "demo-not-on-request-path",
      comment:
        "The demo world (fake upstreams, traffic) is started by the CLI only; nothing a request runs reaches it.",
      severity: "error",
      from: { path: REQUEST_PATH },
      to: { path: "^tools/demo/", reachable: true },
    },
    {
      name: "console-not-to-tools",
      comment:
        "tools/ (the demo world, the benchmarks) stands on the console; of lib/ only the CLI, which starts them, reaches it.",
      severity: "error",
      from: { path: "^(lib|app|components)/", pathNot: "^lib/cli/" },
      to: { path: "^tools/" },
    },
    {
      name: "not-to-tests",
      comment: "Product code never imports test helpers.",
      severity: "error",
      from: { path: "^(lib|app|components|tools)/|^proxy\\.ts$|^instrumentation\\.ts$" },
      to: { path: "^tests/" },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^generated/"] },
    exclude: { path: ["^tests/", "^\\.next/"] },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
