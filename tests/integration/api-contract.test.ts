import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import pg from "pg";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RouteContract, RouteExample } from "@/lib/api/contract";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { can } from "@/lib/auth/permissions";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import { RETRY_AFTER_CODES } from "@/lib/api/error-status";
import { createToken } from "@/lib/auth/tokens";
import { startDemoMcpServer } from "@/tools/demo/mcp/demo-mcp-server";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { listAppRoutes } from "../access/app-routes";
import { routeHandler, type ApiRoutePath } from "../helpers/api-routes";
import { connectTestDb } from "../helpers/db";
import { readRowVersion } from "@/lib/records/visible-records";
import { systemAdmin } from "../helpers/system-admin";

// Every /api/v1 route against its contract (lib/api/contracts): the OpenAPI document generated
// from the contracts passes a real validator (Redocly's recommended rules), and every example of
// every contract, plus the refusals every route shares (no credentials, a role that may not, an
// unknown or repeated parameter, a body that is not JSON), gets an answer whose status the
// document declares and whose body its schema for that status accepts.
process.env.DATABASE_URL = inject("databaseUrl");
const processor = await startDemoProcessor();
// The shop the verification example verifies (POST /api/v1/tools/verifications): marked, and the same one unmarked.
const shopPool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 4 });
const shop = await startDemoMcpServer({ db: shopPool, processorUrl: processor.url, carrierUrl: processor.url });
const configDir = mkdtempSync(path.join(tmpdir(), "idem-api-contract-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({
    tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } },
    mcpServers: [
      { name: "contract-verify", transport: "http", url: shop.url, verify: true },
      { name: "contract-unmarked", transport: "http", url: shop.url },
    ],
    redact: ["$..card"],
    outbound: { allow: ["127.0.0.1"] },
  }),
);

const run = randomBytes(3).toString("hex");
const TENANT = `contract-${run}`;
const KEY = createHash("sha256").update(`contract|${run}`).digest("hex");
const system = systemAdmin("api-contract-test");
const document = buildOpenApiDocument(API_CONTRACTS, "test");

type Header = { required: boolean; schema: { type?: string } };
type Operation = {
  responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, Header> }>;
};
const operationOf = (contract: RouteContract) =>
  (document.paths[contract.path] as Record<string, Operation>)[contract.method.toLowerCase()]!;
/** "/api/v1/records/{key}/check" → "records/[key]/check", the route module's path. */
const moduleOf = (contract: RouteContract) =>
  contract.path.replace(/^\/api\/v1\//, "").replace(/\{(\w+)\}/g, "[$1]") as ApiRoutePath;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/** What is wrong with this answer by the document (null: nothing). */
async function drift(contract: RouteContract, response: Response): Promise<string | null> {
  const declared = operationOf(contract).responses[String(response.status)];
  const text = await response.text();
  if (!declared)
    return `status ${response.status} is not in the contract (${Object.keys(operationOf(contract).responses).join(", ")}): ${text.slice(0, 200)}`;
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const media = declared.content?.[type];
  if (!media) return `content-type ${type} is not declared for ${response.status}`;
  const headerProblem = headerDrift(response, declared.headers ?? {});
  if (headerProblem) return `${response.status} ${headerProblem}`;
  if (type !== "application/json") return null;
  const body: unknown = JSON.parse(text);
  const code = (body as { error?: { code?: string } }).error?.code;
  if (code && (RETRY_AFTER_CODES as readonly string[]).includes(code) && !response.headers.has("retry-after"))
    return `${response.status} ${code} without the retry-after header the document declares`;
  const validate = ajv.compile(media.schema);
  return validate(body)
    ? null
    : `${response.status} body does not match its schema: ${ajv.errorsText(validate.errors)}; body ${text.slice(0, 300)}`;
}

/** A required header missing, or a header whose value its schema refuses (a number's text read as one). */
function headerDrift(response: Response, headers: Record<string, Header>): string | null {
  for (const [name, header] of Object.entries(headers)) {
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) return `header ${name} is required but missing`;
      continue;
    }
    const numeric = header.schema.type === "integer" || header.schema.type === "number";
    const validate = ajv.compile(header.schema);
    if (!validate(numeric && /^\d+$/.test(value) ? Number(value) : value))
      return `header ${name}: ${JSON.stringify(value)} does not match its schema: ${ajv.errorsText(validate.errors)}`;
  }
  return null;
}

describe("every /api/v1 route answers as its contract says", () => {
  const db = connectTestDb();
  const tokens = { viewer: "", admin: "" };

  beforeAll(async () => {
    tokens.viewer = (await createToken(db, system, { name: `contract-viewer-${run}`, role: "viewer" })).token;
    tokens.admin = (await createToken(db, system, { name: `contract-admin-${run}`, role: "admin" })).token;
    // A stuck claim the processor says was taken: the examples' `{key}`.
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${KEY}, ${TENANT}, 'charge_card', 'in_progress', now() - interval '1 hour')`;
    const charged = await fetch(`${processor.url}/charges`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ card: "c_4242", amount_cents: 700, reference: KEY }),
    });
    expect(charged.status).toBe(200);
  });
  afterAll(async () => {
    await shop.stop();
    await shopPool.end();
    await processor.stop();
  });

  // `{version}`: the examples' record's version as it is now (a compare-and-set needs what the caller saw).
  let version = "";
  const fill = (text: string) => text.replaceAll("{key}", KEY).replaceAll("{version}", version);
  /** With `token` null, an Authorization header that is not a bearer token (in-process there is no session to fall back on). */
  async function send(contract: RouteContract, example: Omit<RouteExample, "name" | "status">, token: string | null) {
    const handler = await routeHandler(moduleOf(contract), contract.method);
    version = (await readRowVersion(db, system, KEY)) ?? "";
    const query = new URLSearchParams((example.query ?? []).map(([k, v]) => [k, fill(v)])).toString();
    const params = Object.fromEntries(Object.entries(example.params ?? {}).map(([k, v]) => [k, fill(v)]));
    const url = `http://console.test${contract.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? "x"))}${query ? `?${query}` : ""}`;
    const body = example.rawBody ?? (example.body !== undefined ? fill(JSON.stringify(example.body)) : undefined);
    const request = new Request(url, {
      method: contract.method,
      headers: {
        authorization: token ? `Bearer ${token}` : "Basic not-a-bearer-token",
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    });
    return handler(request, { params: Promise.resolve(params) });
  }

  it("the OpenAPI document passes Redocly's lint (recommended rules)", () => {
    const file = path.join(configDir, "openapi.json");
    writeFileSync(file, JSON.stringify(document));
    const output = execFileSync("npx", ["redocly", "lint", file, "--format", "stylish"], {
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(output).not.toMatch(/error|warning/i);
  });

  it("every route file under app/api/v1 has a contract, and every contract a route", () => {
    const routes = listAppRoutes()
      // The catch-all answers paths no contract has (its own test below).
      .filter((r) => r.kind === "route" && r.pattern.startsWith("/api/v1/") && r.pattern !== "/api/v1/[...path]")
      .flatMap((r) => r.methods.map((m) => `${m} ${r.pattern}`))
      .sort();
    const contracted = API_CONTRACTS.map((c) => `${c.method} ${c.path.replace(/\{(\w+)\}/g, "[$1]")}`).sort();
    expect(contracted).toEqual(routes);
    console.log(`api contract: ${contracted.length} routes under contract`);
  });

  it(
    "each contract's examples get the status they name, and an answer its schema accepts",
    { timeout: 120_000 },
    async () => {
      const failures: string[] = [];
      let answers = 0;
      for (const contract of API_CONTRACTS) {
        for (const example of contract.examples) {
          const response = await send(contract, example, tokens.admin);
          answers += 1;
          if (response.status !== example.status)
            failures.push(
              `${contract.method} ${contract.path} (${example.name}): ${response.status}, expected ${example.status}: ${(await response.text()).slice(0, 300)}`,
            );
          else {
            const problem = await drift(contract, response);
            if (problem) failures.push(`${contract.method} ${contract.path} (${example.name}): ${problem}`);
          }
        }
      }
      console.log(`api contract: ${answers} example answers checked`);
      expect(failures).toEqual([]);
    },
  );

  it("the refusals every route shares are declared and shaped as declared", { timeout: 120_000 }, async () => {
    const failures: string[] = [];
    const check = async (contract: RouteContract, label: string, response: Response, status: number) => {
      if (response.status !== status)
        failures.push(`${contract.method} ${contract.path} ${label}: ${response.status}, expected ${status}`);
      const problem = await drift(contract, response);
      if (problem) failures.push(`${contract.method} ${contract.path} ${label}: ${problem}`);
    };
    for (const contract of API_CONTRACTS) {
      const valid = contract.examples.find((e) => e.status < 300)!;
      await check(contract, "without a bearer token", await send(contract, valid, null), 401);
      // A route viewers may call (the permission table) has no viewer refusal to check.
      if (!can("viewer", contract.action)) {
        await check(contract, "as a viewer", await send(contract, valid, tokens.viewer), 403);
      }
      await check(
        contract,
        "with an unknown parameter",
        await send(contract, { ...valid, query: [...(valid.query ?? []), ["bogus", "1"]] }, tokens.admin),
        400,
      );
      const first = valid.query?.[0];
      if (first)
        await check(
          contract,
          `with ${first[0]} twice`,
          await send(contract, { ...valid, query: [...valid.query!, first] }, tokens.admin),
          400,
        );
      if (contract.body)
        await check(
          contract,
          "with a body that is not JSON",
          await send(contract, { ...valid, body: undefined, rawBody: "not json" }, tokens.admin),
          400,
        );
    }
    expect(failures).toEqual([]);
  });
  it("a path no route file matches answers the JSON error shape: 404 not_found, 401 first without credentials", async () => {
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const) {
      const handler = await routeHandler("[...path]", method);
      const call = (authorization: string) =>
        handler(new Request("http://console.test/api/v1/no-such-route", { method, headers: { authorization } }), {
          params: Promise.resolve({ path: ["no-such-route"] } as unknown as Record<string, string>),
        });
      const found = await call(`Bearer ${tokens.admin}`);
      expect(found.status, method).toBe(404);
      expect(await found.json()).toEqual({
        error: { code: "not_found", message: expect.stringContaining("/api/v1/no-such-route") },
      });
      expect((await call("Basic not-a-bearer-token")).status, method).toBe(401);
    }
  });
});
