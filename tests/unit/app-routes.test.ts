import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listAppRoutes, routeEntries } from "../access/app-routes";

// The access matrix is only as complete as this walk of app/: a route it missed would have no row
// and no test. Here on a made-up app/ with each form Next accepts.
function fakeApp(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), "idem-app-routes-"));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, "app", file)), { recursive: true });
    writeFileSync(path.join(root, "app", file), text);
  }
  return path.join(root, "app");
}

describe("listAppRoutes", () => {
  it("finds pages and route handlers, strips route groups, keeps dynamic segments, skips private folders", () => {
    const app = fakeApp({
      "(console)/page.tsx": "export default function Page() { return null; }",
      "(console)/records/(list)/page.tsx": "export default function Page() { return null; }",
      "(console)/records/[key]/page.tsx": "export default function Page() { return null; }",
      "(console)/layout.tsx": "export default function Layout() { return null; }",
      "_components/page.tsx": "export default function Page() { return null; }",
      "api/v1/things/[id]/route.ts":
        "export const GET = handler; export async function DELETE() {} const handler = () => null;",
      "api/auth/[...nextauth]/route.ts": "const handler = () => null; export { handler as GET, handler as POST };",
      "api/v1/helpers/route.ts":
        "export const dynamic = 'force-dynamic'; export function PATCH() {} export type Shape = {};",
    });
    expect(routeEntries(listAppRoutes(app))).toEqual([
      "GET /",
      "GET /api/auth/[...nextauth]",
      "POST /api/auth/[...nextauth]",
      "PATCH /api/v1/helpers",
      "DELETE /api/v1/things/[id]",
      "GET /api/v1/things/[id]",
      "GET /records",
      "GET /records/[key]",
    ]);
  });

  it("counts names destructured from methodsNotAllowed(…) as refused, any other destructured method as served", () => {
    const app = fakeApp({
      "api/v1/things/route.ts": [
        "export const GET = handler;",
        'export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed("GET");',
      ].join("\n"),
      // A real handler exported by destructuring still needs its access-matrix row.
      "api/v1/others/route.ts": [
        "export const { GET, POST: [PUT] } = makeHandlers();",
        'export const { PATCH } = refusals; const refusals = methodsNotAllowed("GET");',
        'export const DELETE = methodsNotAllowed("GET").DELETE;',
      ].join("\n"),
    });
    const byPattern = Object.fromEntries(listAppRoutes(app).map((r) => [r.pattern, r]));
    expect(byPattern["/api/v1/things"]).toMatchObject({
      methods: ["GET"],
      refused: ["DELETE", "PATCH", "POST", "PUT"],
    });
    expect(byPattern["/api/v1/others"]).toMatchObject({ methods: ["DELETE", "GET", "PATCH", "PUT"], refused: [] });
  });

  it("reads this repository's app/: every /api/v1 route with at least one method", () => {
    const routes = listAppRoutes().filter((r) => r.kind === "route");
    expect(routes.map((r) => r.pattern)).toContain("/api/v1/records/[key]/resolve");
    expect(routes.filter((r) => r.methods.length === 0).map((r) => r.file)).toEqual([]);
  });
});
