/**
 * The rules judged on what runs: type-only imports are erased before the bundler sees them, so
 * here they are left out (tsPreCompilationDeps: false). Checked with .dependency-cruiser.cjs by
 * `npm run lint:deps` and tests/unit/dependency-rules.test.ts.
 */
const rooms = require("./.dependency-cruiser.cjs");

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "components-not-to-server-only",
      comment:
        'A client component that reaches a module marked `import "server-only"` (directly or through any chain of imports) breaks the build; a server component that does so pulls server code into a UI piece. Components take data as props and import only pure modules.',
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^node_modules/server-only/", reachable: true },
    },
    {
      name: "components-not-to-prisma-at-runtime",
      comment: "No chain of imports from a component ends in Prisma's client.",
      severity: "error",
      from: { path: "^components/" },
      to: { path: "^generated/|^node_modules/(@prisma|prisma)/", reachable: true },
    },
  ],
  options: { ...rooms.options, tsPreCompilationDeps: false },
};
