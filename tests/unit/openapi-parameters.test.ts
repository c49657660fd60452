import { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import type { RouteContract } from "@/lib/api/contract";
import { proxy } from "@/proxy";

// The document's query parameters against the parsers they describe: every enum value a parser
// is documented to take is taken, and a value the document rules out (outside an enum or a
// pattern, past a bound, not a boolean) is refused naming that parameter. Parsers only: no database.
const document = buildOpenApiDocument(API_CONTRACTS, "test");

type Parameter = {
  name: string;
  in: "query" | "path";
  required: boolean;
  schema: {
    type?: string;
    enum?: (string | number)[];
    pattern?: string;
    maxLength?: number;
    minimum?: number;
    maximum?: number;
  };
};
const parametersOf = (contract: RouteContract) =>
  ((document.paths[contract.path] as Record<string, { parameters?: Parameter[] }>)[contract.method.toLowerCase()]
    ?.parameters ?? []) as Parameter[];
const errorCodesOf = (contract: RouteContract, status: number): string[] => {
  const operation = (document.paths[contract.path] as Record<string, { responses: Record<string, unknown> }>)[
    contract.method.toLowerCase()
  ]!;
  const media = (operation.responses[String(status)] as { content: Record<string, { schema: unknown }> } | undefined)
    ?.content["application/json"]?.schema as { properties: { error: { properties: { code: { enum: string[] } } } } };
  return media?.properties.error.properties.code.enum ?? [];
};

/** The query of the contract's first successful example, with `name` set to `value`. */
function queryWith(contract: RouteContract, name: string, value: string): URLSearchParams {
  const valid = contract.examples.find((e) => e.status < 300)!;
  const params = new URLSearchParams((valid.query ?? []).filter(([k]) => k !== name).map(([k, v]) => [k, v]));
  params.set(name, value);
  return params;
}

/** Whether the route's own parser refused the parameter (a problem naming it, or a domain refusal). */
function refused(contract: RouteContract, params: URLSearchParams, name: string): boolean {
  const parsed = contract.query!.parse(params);
  if (parsed.ok) return false;
  return "problems" in parsed ? parsed.problems.some((p) => p.param === name) : true;
}

/** Values the document rules out for this schema, each with why. */
function outside(schema: Parameter["schema"]): [string, string][] {
  const out: [string, string][] = [];
  if (schema.enum) out.push(["zz-not-an-allowed-value", "outside the enum"]);
  if (schema.type === "boolean") out.push(["yes", "not a boolean"]);
  if (schema.type === "integer" && schema.maximum !== undefined)
    out.push([String(schema.maximum + 1), "above maximum"]);
  if (schema.type === "integer" && schema.minimum !== undefined)
    out.push([String(schema.minimum - 1), "below minimum"]);
  if (schema.maxLength !== undefined) out.push(["a".repeat(schema.maxLength + 1), "past maxLength"]);
  if (schema.pattern && !new RegExp(schema.pattern, "u").test("\u0001bad value"))
    out.push(["\u0001bad value", "against the pattern"]);
  return out;
}

// The tools audit, its export, the upload, the lookup and the key explainer read their values in
// the handler (bad_window, bad_format, bad_server, text_too_long, the explainer's field list); their
// parse checks names only.
const HANDLER_READ = new Set([
  "/api/v1/tools/audit",
  "/api/v1/tools/audit/export",
  "/api/v1/tools/upload",
  "/api/v1/lookup",
  "/api/v1/keys/explain",
]);

describe("the document's query parameters agree with the parsers", () => {
  const withQuery = API_CONTRACTS.filter((c) => c.query && !HANDLER_READ.has(c.path));

  it("each enum value a parameter is documented with is accepted", () => {
    const failures: string[] = [];
    let checked = 0;
    for (const contract of withQuery)
      for (const parameter of parametersOf(contract).filter((p) => p.in === "query"))
        for (const value of parameter.schema.enum ?? (parameter.schema.type === "boolean" ? ["true", "false"] : [])) {
          checked += 1;
          const params = queryWith(contract, parameter.name, String(value));
          // dir=prev needs a cursor (a cross-field rule the document states in words).
          if (parameter.name === "dir" && value === "prev") continue;
          if (refused(contract, params, parameter.name))
            failures.push(`${contract.path} ${parameter.name}=${value} is documented but refused`);
        }
    expect(checked).toBeGreaterThan(10);
    expect(failures).toEqual([]);
  });

  it("a value the document rules out is refused, naming the parameter", () => {
    const failures: string[] = [];
    let checked = 0;
    for (const contract of withQuery)
      for (const parameter of parametersOf(contract).filter((p) => p.in === "query"))
        for (const [value, why] of outside(parameter.schema)) {
          checked += 1;
          if (!refused(contract, queryWith(contract, parameter.name, value), parameter.name))
            failures.push(
              `${contract.path} ${parameter.name} ${why} (${JSON.stringify(value.slice(0, 30))}) is accepted`,
            );
        }
    expect(checked).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });

  it("a parameter documented as required is refused when missing", () => {
    for (const contract of withQuery)
      for (const parameter of parametersOf(contract).filter((p) => p.in === "query" && p.required)) {
        const valid = contract.examples.find((e) => e.status < 300)!;
        const params = new URLSearchParams(
          (valid.query ?? []).filter(([k]) => k !== parameter.name).map(([k, v]) => [k, v]),
        );
        expect(contract.query!.parse(params).ok, `${contract.path} without ${parameter.name}`).toBe(false);
      }
  });
});

describe("error codes answered before the handler are in each operation's enum", () => {
  it("a malformed percent escape in {key} gets bad_path, which every /records/{key} operation declares", async () => {
    const withPath = API_CONTRACTS.filter((c) => c.path_params);
    expect(withPath.length).toBeGreaterThanOrEqual(5);
    for (const contract of withPath) {
      const url = `http://console.test${contract.path.replace("{key}", "%E0%A4%A")}`;
      const answer = proxy(new NextRequest(url, { method: contract.method, headers: { authorization: "Bearer x" } }));
      expect(answer.status).toBe(400);
      const { error } = (await answer.json()) as { error: { code: string } };
      expect(errorCodesOf(contract, 400), `${contract.method} ${contract.path}`).toContain(error.code);
    }
  });
});
