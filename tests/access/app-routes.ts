import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/** A page (page.tsx) or a route handler (route.ts) as Next serves it, read from app/ itself. */
export type AppRoute = {
  kind: "page" | "route";
  /** The URL pattern: route groups like `(console)` removed, dynamic segments kept (`/records/[key]`). */
  pattern: string;
  /** The file, relative to the repository. */
  file: string;
  /** For route handlers: the HTTP methods the file serves. Pages answer GET. */
  methods: string[];
  /** The methods the file exports only to refuse them with a JSON 405 (lib/api/method-not-allowed.ts). */
  refused: string[];
};

const HTTP_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** Every page and route handler under `appDir`, sorted by pattern. */
export function listAppRoutes(appDir = path.resolve("app")): AppRoute[] {
  const routes: AppRoute[] = [];
  walk(appDir, []);
  return routes.sort((a, b) => a.pattern.localeCompare(b.pattern) || a.kind.localeCompare(b.kind));

  function walk(dir: string, segments: string[]) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        // `_private` folders are not routes; `@slot` folders render into their parent's URL.
        if (entry.name.startsWith("_")) continue;
        const urlSegment = /^\(.*\)$/.test(entry.name) || entry.name.startsWith("@") ? [] : [entry.name];
        walk(full, [...segments, ...urlSegment]);
        continue;
      }
      const pattern = `/${segments.join("/")}`;
      const file = path.relative(path.dirname(appDir), full);
      if (/^page\.(tsx|ts|jsx|js|mdx)$/.test(entry.name))
        routes.push({ kind: "page", pattern, file, methods: ["GET"], refused: [] });
      if (/^route\.(ts|js)$/.test(entry.name)) {
        const { served, refused } = exportedHttpMethods(full);
        routes.push({ kind: "route", pattern, file, methods: served, refused });
      }
    }
  }
}

/**
 * The HTTP method names a route file exports, in any of the forms Next accepts:
 * `export const GET = …`, `export async function POST()`, `export { handler as GET }`,
 * `export const { GET } = …`. Names destructured straight from a `methodsNotAllowed(…)` call are
 * refused: each answers a JSON 405 and does nothing else, so it has no access-matrix row. Any other
 * export of a method name counts as served, so a real handler is never left out of the matrix.
 */
export function exportedHttpMethods(file: string): { served: string[]; refused: string[] } {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const served: string[] = [];
  const refused: string[] = [];
  const isExported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement) && isExported(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        (isRefusal(declaration) ? refused : served).push(...boundNames(declaration.name));
      }
    } else if (ts.isFunctionDeclaration(statement) && isExported(statement) && statement.name) {
      served.push(statement.name.text);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) served.push(element.name.text);
    }
  }
  const methods = (names: string[]) => names.filter((name) => HTTP_METHODS.has(name)).sort();
  return { served: methods(served), refused: methods(refused) };
}

/** `const { POST, PUT } = methodsNotAllowed(…)`: a destructuring of the refusals, nothing else. */
function isRefusal(declaration: ts.VariableDeclaration): boolean {
  const init = declaration.initializer;
  return (
    ts.isObjectBindingPattern(declaration.name) &&
    init !== undefined &&
    ts.isCallExpression(init) &&
    ts.isIdentifier(init.expression) &&
    init.expression.text === "methodsNotAllowed"
  );
}

/** The names a declaration binds: `GET`, or each name of `{ GET, POST: handler }` and `[GET]`, nested too. */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((element) => (ts.isBindingElement(element) ? boundNames(element.name) : []));
}

/** "GET /api/v1/records" for each method of each route; pages are "GET /records". */
export function routeEntries(routes: AppRoute[]): string[] {
  return routes.flatMap((route) => route.methods.map((method) => `${method} ${route.pattern}`));
}
