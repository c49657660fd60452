// ESLint: Next's core-web-vitals and TypeScript rules; formatting is Prettier's (eslint-config-prettier
// turns off the rules that would fight it). Run by the test command (tests/unit/code-style.test.ts).
import { defineConfig, globalIgnores } from "eslint/config";
import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import prettier from "eslint-config-prettier/flat";

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  prettier,
  {
    rules: {
      // Unused names are mistakes, except the ones spelled as deliberately unused.
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" },
      ],
    },
  },
  {
    // dependency-cruiser reads CommonJS configs; one extends the other with require().
    files: ["*.cjs"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  globalIgnores([
    ".next/**",
    "generated/**",
    "packages/*/dist/**",
    "node_modules/**",
    "test-results/**",
    ".data/**",
    "next-env.d.ts",
  ]),
]);
