import type { z } from "zod";
import type { Action } from "@/lib/auth/permissions";
import type { DomainFailure, ErrorCode } from "@/lib/errors/error-codes";
import type { ParseResult } from "@/lib/url-state/strict-params";

/** The query of a route: its parameters (documented, one string each) and the strict parser that reads them. */
export type QuerySpec<T> = {
  /** One string schema per parameter, for the OpenAPI document; optional ones may be left out. */
  params: z.ZodObject;
  /** Refuses unknown and repeated parameters with the messages of lib/url-state/strict-params.ts. */
  parse: (params: URLSearchParams) => ParseResult<T> | DomainFailure;
};

/** The path parameters of a route: documented, and read with their own refusals (a ref is not a key). */
export type PathSpec<T> = {
  params: z.ZodObject;
  parse: (raw: Record<string, string>) => { ok: true; value: T } | DomainFailure;
};

export type SuccessStatus = 200 | 201;

/** A response header the route sets on purpose, as the document describes it. */
export type HeaderSpec = { description: string; schema: z.ZodType; required?: boolean };

export type ResponseSpec = {
  description: string;
  /** Headers the answer carries, by lower-case name. */
  headers?: Record<string, HeaderSpec>;
  /** The JSON body; for a file download, the schema of the JSON variant or none. */
  schema?: z.ZodType;
  /** Other media types the route may answer with (downloads). */
  contentTypes?: readonly string[];
};

/**
 * A request to the route and the status it must get: the contract test
 * (tests/integration/api-contract.test.ts) sends each and checks the answer against the
 * contract. `{key}` in any string stands for a stuck claim the processor says was taken.
 */
export type RouteExample = {
  name: string;
  params?: Record<string, string>;
  query?: readonly (readonly [string, string])[];
  body?: unknown;
  /** Sent as is (not JSON-encoded): a raw upload, or broken JSON. */
  rawBody?: string;
  status: number;
};

/**
 * One /api/v1 route, declared once: who may call it, what it reads, what it answers. The wrapper
 * (lib/api/contract-route.ts) enforces it, lib/api/openapi.ts documents it and
 * tests/integration/api-contract.test.ts checks every answer against it.
 */
export type RouteContract = {
  method: "GET" | "POST";
  /** The OpenAPI path: `/api/v1/records/{key}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  action: Action;
  path_params?: PathSpec<unknown>;
  query?: QuerySpec<unknown>;
  /** A JSON body, read and validated by the wrapper (lib/api/json-body.ts). */
  body?: z.ZodType;
  /** A body the handler reads itself (an uploaded file), documented here. */
  rawBody?: { description: string; schema: z.ZodType };
  responses: Partial<Record<SuccessStatus, ResponseSpec>>;
  /**
   * "export" for a long streamed read: it is read on connections of the export client's settings (their own
   * statement limit, lib/db/timeouts.ts), which the handler gets as `exportReadDb`.
   */
  pool?: "export";
  /**
   * A GET whose handler only reads: with a bearer token it starts beside the token check, its answer
   * released only when the check passes as the same actor (lib/auth/overlapped-token-check.ts).
   */
  readOnly?: true;
  /** The codes this route itself may answer, beyond those every route may (COMMON_ERRORS). */
  errors: readonly ErrorCode[];
  /** At least one request it answers with success, and the refusals worth showing. */
  examples: readonly RouteExample[];
};

/** What any authenticated route may answer: no or bad credentials, a role, the Origin rule, an outage. */
export const COMMON_ERRORS = [
  "unauthenticated",
  "forbidden",
  "cross_origin",
  "bad_request",
  "unavailable",
  "database_unavailable",
  "database_timeout",
  "record_locked",
  "internal",
] as const satisfies readonly ErrorCode[];
/** What every route with a path parameter may answer: proxy.ts refuses a malformed percent escape first. */
export const PATH_ERRORS = ["bad_path"] as const satisfies readonly ErrorCode[];
/** What every route with a JSON body may answer besides its own refusals. */
export const BODY_ERRORS = ["bad_json", "bad_text", "too_large"] as const satisfies readonly ErrorCode[];

export function defineContract<const C extends RouteContract>(contract: C): C {
  return contract;
}

// The types every side reads from a contract, so an answer's shape is declared once, in its
// response schema: the handler replies with it, the client (components/ui/api-client.ts) reads it.

/** The success statuses a contract declares. */
export type ContractStatus<C extends RouteContract> = keyof C["responses"] & SuccessStatus;

type ResponseSchema<C extends RouteContract, S extends ContractStatus<C>> = C["responses"][S] extends {
  schema: infer T extends z.ZodType;
}
  ? T
  : never;

/** What a handler replies with for status S: the schema's input (JSON-encoded, it must parse). */
export type ContractReplyBody<C extends RouteContract, S extends ContractStatus<C>> = z.input<ResponseSchema<C, S>>;

/** What a caller receives with status S, e.g. `ContractResponse<typeof listRecordsContract, 200>`. */
export type ContractResponse<C extends RouteContract, S extends ContractStatus<C> = 200 & ContractStatus<C>> = z.output<
  ResponseSchema<C, S>
>;

/** What a caller receives on success, whichever success status the contract declares. */
export type ContractSuccess<C extends RouteContract> = {
  [S in ContractStatus<C>]: ContractResponse<C, S>;
}[ContractStatus<C>];

/** The JSON body a caller sends (before the route's parsing: defaults may be left out); {} where it reads none. */
export type ContractRequestBody<C extends RouteContract> = C["body"] extends z.ZodType
  ? z.input<C["body"]>
  : Record<string, never>;

/** Every error code the route may answer with: its own and those every route may. */
export type ContractErrorCode<C extends RouteContract> = C["errors"][number] | (typeof COMMON_ERRORS)[number];
