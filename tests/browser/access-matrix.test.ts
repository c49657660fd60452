import { createHash, randomBytes } from "node:crypto";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { accessRequests, type Answer } from "../access/access-requests";
import { listAppRoutes, routeEntries } from "../access/app-routes";
import { callAs, mapLimited, type Credentials } from "../access/call-as";
import { EXPECTED_ACCESS, HOME, IDENTITIES, SIGN_IN, type Cell, type Identity } from "../access/expected-access";
import { signInOverHttp } from "../access/http-session";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// The access matrix over real HTTP against the running console: every page and every route
// handler method found in app/ × every kind of caller, each cell as tests/access/expected-access.ts says.
// A method a route file exports only to refuse it (methodsNotAllowed: a JSON 405 after the same
// credential check) does nothing, so it has no row; tests/integration/method-not-allowed.test.ts covers those.
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const fixtures = {
  missingKey: createHash("sha256").update(`access-matrix|${run}`).digest("hex"),
  noSuchTenant: `no-such-tenant-${run}`,
  run,
};
const requests = accessRequests(fixtures);
const system = systemAdmin("access-matrix-test", { id: "access-matrix" });

/** What a cell requires of an answer; null when it holds. */
function judge(cell: Cell, answer: Answer, path: string, ran: () => string | null): string | null {
  const code = (() => {
    try {
      return (JSON.parse(answer.text) as { error?: { code?: string } }).error?.code ?? null;
    } catch {
      return null;
    }
  })();
  const target = answer.location === null ? null : new URL(answer.location, baseUrl);
  switch (cell) {
    case SIGN_IN:
      if (answer.status !== 307 || target?.pathname !== "/sign-in")
        return `expected 307 to /sign-in, got ${answer.status} ${answer.location ?? ""}`;
      return sameUrl(target.searchParams.get("callbackUrl") ?? "", path)
        ? null
        : `sign-in should return to ${path}, not ${target.searchParams.get("callbackUrl")}`;
    case HOME:
      return answer.status === 307 && target?.pathname === "/"
        ? null
        : `expected 307 to /, got ${answer.status} ${answer.location ?? ""}`;
    case 401:
      return answer.status === 401 && code === "unauthenticated"
        ? null
        : `expected 401 unauthenticated, got ${answer.status} ${code ?? answer.text.slice(0, 120)}`;
    case 403:
      return answer.status === 403 && code === "forbidden"
        ? null
        : `expected 403 forbidden, got ${answer.status} ${code ?? answer.text.slice(0, 120)}`;
    default:
      if (answer.status !== cell)
        return `expected ${cell}, got ${answer.status} ${answer.location ?? ""} ${answer.text.slice(0, 160)}`;
      return ran();
  }
}

/** Path and query equal once decoded (`ref%20x` and `ref+x` are the same query). */
function sameUrl(a: string, b: string): boolean {
  const normal = (value: string) => {
    const url = new URL(value, baseUrl);
    return `${url.origin}${url.pathname}?${new URLSearchParams(url.search).toString()}`;
  };
  return normal(a) === normal(b);
}

function shown(answer: Answer): string {
  if (answer.status === 307 && answer.location) {
    const target = new URL(answer.location, baseUrl).pathname;
    return target === "/sign-in" ? SIGN_IN : target === "/" ? HOME : `→ ${target}`;
  }
  return String(answer.status);
}

describe("access matrix: every page and /api route × every kind of caller", () => {
  const db = connectTestDb();
  const credentials = { anonymous: {} } as Record<Identity, Credentials>;

  beforeAll(async () => {
    const accounts = {
      viewer: "viewer@demo.test",
      operator: "operator@demo.test",
      admin: "admin@demo.test",
      "acme viewer": "acme-support@demo.test",
    } as const;
    await Promise.all(
      Object.entries(accounts).map(async ([identity, email]) => {
        credentials[identity as Identity] = { cookie: (await signInOverHttp(baseUrl, email)).cookie };
      }),
    );
    const tokens = [
      ["viewer token", "viewer", []],
      ["operator token", "operator", []],
      ["admin token", "admin", []],
      ["acme token", "viewer", ["acme"]],
    ] as const;
    for (const [identity, role, tenants] of tokens) {
      const { token } = await createToken(db, system, {
        name: `matrix-${identity.replace(" ", "-")}-${run}`,
        role,
        tenants: [...tenants],
      });
      credentials[identity] = { bearer: token };
    }
    const { token: metricsToken } = await createToken(db, system, {
      name: `matrix-metrics-token-${run}`,
      role: "viewer",
      scope: "metrics",
    });
    credentials["metrics token"] = { bearer: metricsToken };
  });

  it("has one row for each page and each served method of each route handler in app/, and none for routes that are gone", () => {
    const inApp = routeEntries(listAppRoutes());
    expect(inApp.length).toBeGreaterThan(20); // the walk found the app
    const missing = inApp.filter((entry) => !Object.hasOwn(EXPECTED_ACCESS, entry));
    const gone = Object.keys(EXPECTED_ACCESS).filter((entry) => !inApp.includes(entry));
    const noRequest = inApp.filter((entry) => !Object.hasOwn(requests, entry));
    expect(
      missing,
      `in app/ but not in tests/access/expected-access.ts (add a row saying who may call it): ${missing.join(", ")}`,
    ).toEqual([]);
    expect(gone, `in tests/access/expected-access.ts but no longer in app/: ${gone.join(", ")}`).toEqual([]);
    expect(noRequest, `no harmless request in tests/access/access-requests.ts for: ${noRequest.join(", ")}`).toEqual(
      [],
    );
  });

  it("every cell answers as the table says, and allowed cells show the route itself ran", async () => {
    const entries = routeEntries(listAppRoutes()).filter(
      (entry) => Object.hasOwn(EXPECTED_ACCESS, entry) && Object.hasOwn(requests, entry),
    );
    const cells = entries.flatMap((entry) =>
      IDENTITIES.map((identity, column) => ({ entry, identity, expected: EXPECTED_ACCESS[entry]![column]! })),
    );
    const started = Date.now();
    const results = await mapLimited(cells, 4, async ({ entry, identity, expected }) => {
      const method = entry.split(" ")[0]!;
      const request = requests[entry]!;
      const answer = await callAs(baseUrl, credentials[identity], {
        method,
        path: request.path,
        body: request.body,
        contentType: request.contentType,
      });
      const problem = judge(expected, answer, request.path, () => request.ran(answer, identity));
      return { entry, identity, expected, answer, problem };
    });

    const width = Math.max(...entries.map((e) => e.length));
    const lines = [
      `access matrix: ${entries.length} routes × ${IDENTITIES.length} identities = ${cells.length} cells in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      `${"".padEnd(width)}  ${IDENTITIES.map((i) => i.padEnd(16)).join("")}`,
      ...entries.map(
        (entry) =>
          `${entry.padEnd(width)}  ${results
            .filter((r) => r.entry === entry)
            .map((r) => `${shown(r.answer)}${r.problem ? " ✗" : ""}`.padEnd(16))
            .join("")}`,
      ),
    ];
    console.log(lines.join("\n"));

    const failures = results.filter((r) => r.problem).map((r) => `${r.entry} as ${r.identity}: ${r.problem}`);
    expect(failures, failures.join("\n")).toEqual([]);
    expect(cells.length).toBe(entries.length * IDENTITIES.length);
  });
});
