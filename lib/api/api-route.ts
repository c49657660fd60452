import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { canWithScope, type Action } from "@/lib/auth/permissions";
import { getSessionActor } from "@/lib/auth/session-actor";
import { authenticateToken, hashToken } from "@/lib/auth/tokens";
import { TokenCheckCarrier } from "@/lib/auth/carried-token-check";
import { getDb, readsMayStartBesideChecks } from "@/lib/db/client";
import { databaseFaultAnswer } from "@/lib/api/database-fault-answer";
import { databaseFaultOf, describeDatabaseError } from "@/lib/db/describe-error";
import { UserError } from "@/lib/errors/user-error";
import { jsonError } from "@/lib/api/json-error";
import { logDeniedRequest, tokenPrefixOf, type DeniedRequest } from "@/lib/audit/log-denied";
import { isSameOrigin } from "@/lib/api/same-origin";
import { gzipWhereLabelled } from "@/lib/api/self-gzip";
import { recordCheck, sameActor, startBesideCheck } from "@/lib/auth/overlapped-token-check";

type Handler<P> = (input: {
  request: Request;
  actor: Actor;
  params: P;
  /** Set when the route carries its token check: its read puts the carrier's column in its statement. */
  tokenCheck?: TokenCheckCarrier;
}) => Promise<Response>;

export type ApiRouteOptions = {
  /**
   * The handler only reads (a GET with no side effect): with a bearer token it may start beside the
   * token check, its answer kept only if the check passes as the same actor (overlapped-token-check.ts).
   */
  readOnly?: boolean;
  /**
   * The read-only handler's read on the primary carries the token check in its own statement
   * (carried-token-check.ts): one round trip instead of two. Where it did not (it answered before
   * reading), the check is made after it.
   */
  carriesTokenCheck?: boolean;
};

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Wraps a /api/v1 route handler: authenticates (bearer token or session), checks the action
 * against the permission table, demands same-origin for browser mutations, and turns every
 * failure into JSON — never a stack trace.
 */
export function apiRoute<P = Record<string, never>>(
  action: Action,
  handler: Handler<P>,
  options: ApiRouteOptions = {},
) {
  const answer = async (request: Request, context: { params: Promise<P> }, path: string): Promise<Response> => {
    // Refusals of a credential or a role are audited (access.denied); the answer stays the same.
    const deny = async (denied: Omit<DeniedRequest, "method" | "path">) => {
      await logDeniedRequest(getDb(), { ...denied, method: request.method, path });
      return jsonError(denied.status, denied.code, denied.message);
    };
    try {
      const authorization = request.headers.get("authorization");
      let actor: Actor | null;
      if (authorization !== null) {
        const match = /^Bearer\s+(\S+)$/i.exec(authorization);
        if (!match) return jsonError(401, "unauthenticated", "Authorization must be `Bearer <token>`.");
        const token = match[1]!;
        // Hashed once: the carrier, the overlap's memory and its record all key on it.
        const tokenHash = hashToken(token);
        const carrier = options.carriesTokenCheck ? new TokenCheckCarrier(tokenHash, getDb()) : undefined;
        const besideCheck =
          options.readOnly && request.method === "GET" && readsMayStartBesideChecks()
            ? startBesideCheck(tokenHash, action, async (guess) =>
                handler({ request, actor: guess, params: await context.params, tokenCheck: carrier }),
              )
            : null;
        // A carrying read has the token's row by the time it is done; otherwise the check is its own statement.
        if (besideCheck && carrier) await besideCheck.outcome;
        const check = await authenticateToken(getDb(), token, besideCheck ? carrier?.row : undefined);
        recordCheck(tokenHash, check.ok ? check.actor : null);
        if (
          check.ok &&
          besideCheck &&
          sameActor(besideCheck.actor, check.actor) &&
          canWithScope(check.actor.role, check.actor.scope, action)
        ) {
          const outcome = await besideCheck.outcome;
          if (!outcome.ok) throw outcome.error;
          return outcome.value;
        }
        if (!check.ok) {
          return deny({
            actor: null,
            tokenPrefix: tokenPrefixOf(match[1]!),
            status: 401,
            code: "unauthenticated",
            message: `Bearer token refused: ${check.reason}.`,
          });
        }
        actor = check.actor;
      } else {
        actor = await getSessionActor();
        if (!actor) return jsonError(401, "unauthenticated", "Sign in, or send `Authorization: Bearer <token>`.");
        if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request)) {
          return deny({
            actor,
            status: 403,
            code: "cross_origin",
            message: "Browser requests that change data must come from this site (Origin header).",
          });
        }
      }
      if (!canWithScope(actor.role, actor.scope, action)) {
        return deny({
          actor,
          status: 403,
          code: "forbidden",
          message:
            actor.scope === "metrics"
              ? `This token's scope (metrics) allows only metrics:scrape, not ${action}.`
              : `Your role (${actor.role}) may not ${action}.`,
          permission: action,
        });
      }
      return await handler({ request, actor, params: await context.params });
    } catch (error) {
      if (error instanceof UserError)
        return jsonError(
          error.exitCode === 2 ? 400 : 503,
          error.exitCode === 2 ? "bad_request" : "unavailable",
          error.message,
        );
      const fault = databaseFaultOf(error);
      if (fault) {
        console.error(`[api] database ${fault}:`, describeDatabaseError(error));
        return databaseFaultAnswer(fault);
      }
      console.error("[api]", request.method, path, error);
      return jsonError(500, "internal", "The console failed to answer this request; the error is in the server log.");
    }
  };
  // A path that gzips its own answers has every answer gzipped, a refusal's too (lib/api/self-gzip.ts).
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    const path = new URL(request.url).pathname;
    return gzipWhereLabelled(request, path, await answer(request, context, path));
  };
}
