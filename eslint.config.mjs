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
    // A page is built from the components/ui primitives: a raw form control anywhere else is an
    // error (docs/architecture.md#building-a-page). Only the primitives themselves render one.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: [
      "components/ui/input.tsx",
      "components/ui/select.tsx",
      "components/ui/textarea.tsx",
      "components/ui/checkbox.tsx",
      "components/ui/file-input.tsx",
    ],
    rules: {
      "react/forbid-elements": [
        "error",
        {
          forbid: [
            { element: "input", message: "use Input, Checkbox or FileInput from components/ui" },
            { element: "select", message: "use Select from components/ui" },
            { element: "textarea", message: "use Textarea from components/ui" },
          ],
        },
      ],
    },
  },
  {
    // In-app links prefetch when reached for, not on sight (components/ui/link.tsx): next/link only there.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ignores: ["components/ui/link.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "next/link", message: "use Link from @/components/ui/link (it prefetches on intent)" }] },
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
    // Side builds (IDEM_NEXT_DIST_DIR), as .gitignore has them.
    ".next-*/**",
    "generated/**",
    "packages/*/dist/**",
    "node_modules/**",
    "test-results/**",
    ".data/**",
    "next-env.d.ts",
  ]),
]);
