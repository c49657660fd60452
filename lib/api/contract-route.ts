import "server-only";
import type { z } from "zod";
import type { Actor } from "@/lib/identity/actor";
import { apiRoute } from "@/lib/api/api-route";
import type { PathSpec, QuerySpec, RouteContract, SuccessStatus } from "@/lib/api/contract";
import { readJsonBody } from "@/lib/api/json-body";
import { errorResponse } from "@/lib/api/json-error";
import { noQuery } from "@/lib/api/strict-query";
import { paramProblemsError } from "@/lib/api/param-problems-error";
import { getDb, getExportDb, getReadDb } from "@/lib/db/client";
import type { Db } from "@/lib/db/prisma";
import { isDomainFailure, type DomainFailure } from "@/lib/errors/error-codes";

type Parsed<S, Fallback> = S extends QuerySpec<infer T> ? T : S extends PathSpec<infer T> ? T : Fallback;

export type ContractInput<C extends RouteContract> = {
  request: Request;
  actor: Actor;
  /** The primary: every write, and every read that must see the latest writes. */
  db: Db;
  /** The read replica when DATABASE_READ_URL is set, else the primary: lists, counts, metrics, exports (lib/db/client.ts getReadDb). */
  readDb: Db;
  params: Parsed<C["path_params"], Record<string, never>>;
  query: Parsed<C["query"], Record<string, never>>;
  body: C["body"] extends z.ZodType ? z.output<C["body"]> : undefined;
};

/** A JSON answer with its status; a Response for downloads; a DomainFailure becomes the API's error. */
export type ContractAnswer = { status: SuccessStatus; body: unknown } | Response | DomainFailure;

export function reply(body: unknown, status: SuccessStatus = 200): ContractAnswer {
  return { status, body };
}

/**
 * A /api/v1 route from its contract: apiRoute authenticates, authorises (the contract's action)
 * and turns throws into JSON; this reads the path, the query (strictly: unknown or repeated
 * parameters refused) and the JSON body in that order, hands the handler the database and the
 * actor, and maps a domain failure to its status (lib/api/error-status.ts).
 */
export function contractRoute<const C extends RouteContract>(
  contract: C,
  handler: (input: ContractInput<C>) => Promise<ContractAnswer>,
) {
  return apiRoute<Record<string, string>>(contract.action, async ({ request, actor, params: rawParams }) => {
    let params: unknown = {};
    if (contract.path_params) {
      const parsed = contract.path_params.parse(rawParams);
      if (!parsed.ok) return errorResponse(parsed);
      params = parsed.value;
    }
    const parsedQuery = (contract.query ?? noQuery).parse(new URL(request.url).searchParams);
    if (!parsedQuery.ok)
      return "problems" in parsedQuery ? paramProblemsError(parsedQuery.problems) : errorResponse(parsedQuery);
    let body: unknown;
    if (contract.body) {
      const read = await readJsonBody(request, contract.body);
      if (!read.ok) return read.response;
      body = read.value;
    }
    const answer = await handler({
      request,
      actor,
      db: contract.pool === "export" ? getExportDb() : getDb(),
      readDb: getReadDb(contract.pool ?? "interactive"),
      params,
      query: parsedQuery.value,
      body,
    } as ContractInput<C>);
    if (answer instanceof Response) return answer;
    if (isDomainFailure(answer)) return errorResponse(answer);
    return Response.json(answer.body, { status: answer.status });
  });
}
