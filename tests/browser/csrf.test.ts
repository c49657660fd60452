import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { accessRequests } from "../access/access-requests";
import { listAppRoutes } from "../access/app-routes";
import { callAs, type Credentials } from "../access/call-as";
import { EXPECTED_ACCESS, IDENTITIES } from "../access/expected-access";
import { signInOverHttp, type HttpSession } from "../access/http-session";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// Cross-site request forgery against the running console. A session rides along with any request
// the browser makes, so every session mutation must prove it comes from this site (Origin); a
// bearer token is never sent by a browser on its own, so token requests need no Origin.
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const requests = accessRequests({
  missingKey: createHash("sha256").update(`csrf|${run}`).digest("hex"),
  noSuchTenant: `no-such-tenant-${run}`,
  run,
});
const system = systemAdmin("csrf-test", { id: "csrf" });

/** Every mutating method each /api/v1 route handler serves, read from app/ (refused ones answer 405 after the same check). */
const mutations = listAppRoutes()
  .filter((route) => route.kind === "route" && route.pattern.startsWith("/api/v1/"))
  .flatMap((route) =>
    route.methods.filter((m) => !["GET", "HEAD", "OPTIONS"].includes(m)).map((m) => `${m} ${route.pattern}`),
  );

const host = new URL(baseUrl).host;
// `https://${host}`: the same host and port on another scheme (a host-only compare let it through).
const FOREIGN_ORIGINS = [
  `https://${host}`,
  "https://evil.example",
  `http://${host}.evil.example`,
  `http://evil.example/${host}`,
  "null",
  `https://${host}`.replace(/:\d+$/, ":1"),
];

describe("CSRF: session mutations need this site's Origin; tokens need none; the session cookie", () => {
  const db = connectTestDb();
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });
  let admin: HttpSession;
  let operator: HttpSession;
  let adminToken: string;

  beforeAll(async () => {
    [admin, operator] = await Promise.all([
      signInOverHttp(baseUrl, "admin@demo.test"),
      signInOverHttp(baseUrl, "operator@demo.test"),
    ]);
    adminToken = (await createToken(db, system, { name: `csrf-admin-${run}`, role: "admin" })).token;
  });
  afterAll(() => pool.end());

  const code = (text: string) => {
    try {
      return (JSON.parse(text) as { error?: { code?: string } }).error?.code ?? null;
    } catch {
      return null;
    }
  };

  it("finds the mutating routes in app/", () => {
    expect(mutations).toContain("POST /api/v1/records/[key]/resolve");
    expect(mutations.length).toBeGreaterThanOrEqual(9);
  });

  it("refuses every session mutation with a foreign Origin or none at all (403 cross_origin), and lets the same one through from this site", async () => {
    const adminColumn = IDENTITIES.indexOf("admin");
    const problems: string[] = [];
    for (const entry of mutations) {
      const method = entry.split(" ")[0]!;
      const request = requests[entry];
      if (!request) {
        problems.push(`${entry}: no request in tests/access/access-requests.ts`);
        continue;
      }
      const call = { method, path: request.path, body: request.body, contentType: request.contentType };
      for (const origin of [null, ...FOREIGN_ORIGINS]) {
        const answer = await callAs(baseUrl, { cookie: admin.cookie }, { ...call, origin });
        if (answer.status !== 403 || code(answer.text) !== "cross_origin")
          problems.push(`${entry} with Origin ${origin ?? "(none)"}: ${answer.status} ${answer.text.slice(0, 120)}`);
      }
      // Control: from this site the same session gets what the access matrix says an admin gets.
      const same = await callAs(baseUrl, { cookie: admin.cookie }, { ...call, origin: baseUrl });
      if (same.status !== EXPECTED_ACCESS[entry]![adminColumn])
        problems.push(`${entry} from this site: ${same.status}, expected ${EXPECTED_ACCESS[entry]![adminColumn]}`);
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("a bearer token needs no Origin: every mutation answers as it does from this site", async () => {
    const column = IDENTITIES.indexOf("admin token");
    const problems: string[] = [];
    for (const entry of mutations) {
      const request = requests[entry]!;
      const credentials: Credentials = { bearer: adminToken };
      for (const origin of [null, "https://evil.example"]) {
        const answer = await callAs(baseUrl, credentials, {
          method: entry.split(" ")[0]!,
          path: request.path,
          body: request.body,
          contentType: request.contentType,
          origin,
        });
        if (answer.status !== EXPECTED_ACCESS[entry]![column])
          problems.push(
            `${entry} by token, Origin ${origin ?? "(none)"}: ${answer.status} ${answer.text.slice(0, 120)}`,
          );
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("a forged cross-site release changes nothing and writes no audit row; the same release from this site does", async () => {
    const key = createHash("sha256").update(`csrf-claim|${run}`).digest("hex");
    await pool.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, 'charge_card', 'in_progress', now() - interval '1 hour')`,
      [key, `csrf-${run}`],
    );
    const release = {
      method: "POST",
      path: `/api/v1/records/${key}/resolve`,
      contentType: "application/json",
      body: JSON.stringify({
        action: "release",
        reason: "csrf test: the processor never saw it",
        expectedUpdatedAt: null,
      }),
    };
    const state = async () => ({
      status:
        (await pool.query<{ status: string }>(`SELECT status FROM idempotency WHERE key = $1`, [key])).rows[0]
          ?.status ?? null,
      audits: Number(
        (await pool.query<{ n: string }>(`SELECT count(*) AS n FROM audit_log WHERE key = $1`, [key])).rows[0]?.n,
      ),
    });

    for (const origin of [null, "https://evil.example"]) {
      const forged = await callAs(baseUrl, { cookie: operator.cookie }, { ...release, origin });
      expect(forged.status).toBe(403);
      expect(code(forged.text)).toBe("cross_origin");
    }
    expect(await state()).toEqual({ status: "in_progress", audits: 0 });

    const genuine = await callAs(baseUrl, { cookie: operator.cookie }, { ...release, origin: baseUrl });
    expect(genuine.status, genuine.text).toBe(200);
    expect(await state()).toEqual({ status: null, audits: 1 });
  });

  it("the session cookie is HttpOnly and SameSite=Lax, on path /, and not Secure over plain http", () => {
    const [nameValue, ...attributes] = admin.setCookie.split(";").map((part) => part.trim());
    const attribute = (name: string) => attributes.find((a) => a.toLowerCase().split("=")[0] === name.toLowerCase());
    expect(nameValue).toMatch(/^next-auth\.session-token=/); // http: no __Secure- prefix (unit-tested for https)
    expect(attribute("HttpOnly")).toBeDefined();
    expect(attribute("SameSite")?.toLowerCase()).toBe("samesite=lax");
    expect(attribute("Path")).toBe("Path=/");
    expect(attribute("Secure")).toBeUndefined();
  });
});
