import "server-only";
import type { z } from "zod";
import type { Actor } from "@/lib/identity/actor";
import { apiRoute } from "@/lib/api/api-route";
import type { TokenCheckCarrier } from "@/lib/auth/carried-token-check";
import type { ContractReplyBody, ContractStatus, PathSpec, QuerySpec, RouteContract } from "@/lib/api/contract";
import { readJsonBody } from "@/lib/api/json-body";
import { errorResponse } from "@/lib/api/json-error";
import { jsonAnswer } from "@/lib/api/json-answer";
import { noQuery } from "@/lib/api/strict-query";
import { paramProblemsError } from "@/lib/api/param-problems-error";
import { getDb, getReadDb } from "@/lib/db/client";
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
  /** The JSON answer, typed from the contract's response schema for that status (200 unless given). */
  reply: ContractReply<C>;
  /** On a route that carries its token check, the carrier its read on `db` takes (lib/auth/carried-token-check.ts). */
  tokenCheck?: TokenCheckCarrier;
} & (C["pool"] extends "export"
  ? {
      /** The export client (replica or primary) whose settings the export's own connections take, on its worker thread. */
      exportReadDb: Db;
    }
  : unknown);

/** A JSON answer with a status the contract declares and the body its schema describes. */
export type JsonAnswer<C extends RouteContract> = {
  [S in ContractStatus<C>]: { status: S; body: ContractReplyBody<C, S> };
}[ContractStatus<C>];

export type ContractReply<C extends RouteContract> = <S extends ContractStatus<C> = 200 & ContractStatus<C>>(
  body: ContractReplyBody<C, S>,
  status?: S,
) => JsonAnswer<C>;

/** A JSON answer with its status; a Response for downloads; a DomainFailure becomes the API's error. */
export type ContractAnswer<C extends RouteContract> = JsonAnswer<C> | Response | DomainFailure;

function reply(body: unknown, status: number = 200) {
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
  handler: (input: ContractInput<C>) => Promise<ContractAnswer<C>>,
  options: { carriesTokenCheck?: boolean } = {},
) {
  return apiRoute<Record<string, string>>(
    contract.action,
    async ({ request, actor, params: rawParams, tokenCheck }) => {
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
        // The route's own short reads (a tenant check) run on the requests' pool even beside an export.
        db: getDb(),
        readDb: getReadDb(),
        ...(contract.pool === "export" ? { exportReadDb: getReadDb("export") } : {}),
        params,
        query: parsedQuery.value,
        body,
        reply,
        tokenCheck,
      } as unknown as ContractInput<C>);
      if (answer instanceof Response) return answer;
      if (isDomainFailure(answer)) return errorResponse(answer);
      const json = answer as { status: number; body: unknown };
      return jsonAnswer(json.body, json.status);
    },
    {
      readOnly: contract.readOnly === true && contract.method === "GET",
      carriesTokenCheck: options.carriesTokenCheck === true && contract.readOnly === true,
    },
  );
}
