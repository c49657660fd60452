import { z } from "zod";
import { BODY_ERRORS, COMMON_ERRORS, PATH_ERRORS, type HeaderSpec, type RouteContract } from "@/lib/api/contract";
import { errorBody } from "@/lib/api/contracts/shared-schemas";
import { ERROR_STATUS, RETRY_AFTER_CODES } from "@/lib/api/error-status";
import type { ErrorCode } from "@/lib/errors/error-codes";

type JsonSchema = Record<string, unknown>;

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a zod schema, as a request (`input`) or an answer (`output`). */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as JsonSchema;
  return rest;
}

/** Every error code a route may answer: its own and those every route may. */
export function errorCodesOf(contract: RouteContract): ErrorCode[] {
  return [
    ...new Set<ErrorCode>([
      ...COMMON_ERRORS,
      ...(contract.path_params ? PATH_ERRORS : []),
      ...(contract.body ? BODY_ERRORS : []),
      ...contract.errors,
    ]),
  ];
}

function parametersOf(contract: RouteContract) {
  const of = (location: "path" | "query", shape: z.ZodObject | undefined) =>
    Object.entries(shape?.shape ?? {}).map(([name, field]) => {
      const schema = jsonSchemaOf(field as z.ZodType, "input");
      const { description, ...rest } = schema;
      return {
        name,
        in: location,
        required: location === "path" || !(field as z.ZodType).safeParse(undefined).success,
        schema: rest,
        ...(description ? { description } : {}),
      };
    });
  return [...of("path", contract.path_params?.params), ...of("query", contract.query?.params)];
}

/** The Retry-After an error answer carries for the codes in RETRY_AFTER_CODES. */
export const RETRY_AFTER_HEADER: HeaderSpec = {
  description: `Seconds to wait before trying again; sent with ${RETRY_AFTER_CODES.join(", ")} (the moment failed, not the request).`,
  schema: z.int().min(1),
};

function headersOf(headers: Record<string, HeaderSpec>) {
  return Object.fromEntries(
    Object.entries(headers).map(([name, spec]) => [
      name,
      { description: spec.description, required: spec.required ?? false, schema: jsonSchemaOf(spec.schema, "output") },
    ]),
  );
}

function operationOf(contract: RouteContract) {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(contract.responses)) {
    if (!spec) continue;
    const content: Record<string, unknown> = {};
    if (spec.schema) content["application/json"] = { schema: jsonSchemaOf(spec.schema, "output") };
    for (const type of spec.contentTypes ?? []) content[type] = { schema: { type: "string" } };
    responses[status] = {
      description: spec.description,
      ...(spec.headers ? { headers: headersOf(spec.headers) } : {}),
      ...(Object.keys(content).length > 0 ? { content } : {}),
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(contract))
    byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const retry = codes.some((code) => (RETRY_AFTER_CODES as readonly ErrorCode[]).includes(code));
    responses[String(status)] = {
      description: codes.join(", "),
      ...(retry ? { headers: headersOf({ "retry-after": RETRY_AFTER_HEADER }) } : {}),
      content: { "application/json": { schema: jsonSchemaOf(errorBody(codes), "output") } },
    };
  }
  const body = contract.body
    ? { required: true, content: { "application/json": { schema: jsonSchemaOf(contract.body, "input") } } }
    : contract.rawBody
      ? {
          required: true,
          description: contract.rawBody.description,
          content: { "application/json": { schema: jsonSchemaOf(contract.rawBody.schema, "input") } },
        }
      : undefined;
  const parameters = parametersOf(contract);
  return {
    operationId: `${contract.method.toLowerCase()}${contract.path
      .replace(/^\/api\/v1/, "")
      .replace(/[{}]/g, "")
      .replace(/[/._-](\w)/g, (_, c: string) => c.toUpperCase())}`,
    summary: contract.summary,
    ...(contract.description ? { description: contract.description } : {}),
    tags: [contract.tag],
    "x-permission": contract.action,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document of the given contracts. */
export function buildOpenApiDocument(contracts: readonly RouteContract[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const contract of contracts)
    (paths[contract.path] ??= {})[contract.method.toLowerCase()] = operationOf(contract);
  const tags = [...new Set(contracts.map((c) => c.tag))]
    .sort()
    .map((name) => ({ name, description: `The ${name} routes.` }));
  return {
    openapi: "3.1.0" as const,
    info: {
      title: "Idem Console API",
      version,
      description:
        "The JSON API of Idem Console. Every error is `{error: {code, message, ...}}` with a code from one closed set; each operation names the permission it needs (x-permission). Browser sessions must send a same-origin Origin header on POST. A method a path does not list is answered, after the same credential check as any route, 405 `method_not_allowed` with an Allow header naming the methods it has; a path not listed, 404 `not_found`.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
    },
    servers: [{ url: "/", description: "This console" }],
    security: [{ bearerToken: [] }, { session: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearerToken: { type: "http", scheme: "bearer", description: "An API token (`idem tokens create`)." },
        session: {
          type: "apiKey",
          in: "cookie",
          name: "next-auth.session-token",
          description: "A signed-in browser session.",
        },
      },
    },
  };
}
