import type {
  ContractErrorCode,
  ContractRequestBody,
  ContractSuccess,
  QuerySpec,
  RouteContract,
} from "@/lib/api/contract";
import { apiUrl, type PathParamNames, type PathParams } from "@/lib/api/api-url";
import { sendMutation, type MutationFailure } from "@/components/ui/send-mutation";

/**
 * A route as the browser calls it: its method and path (lib/api/routes.ts), typed with its
 * contract, which is only a type here — the contracts' parsers are server code.
 */
export type Endpoint<C extends RouteContract> = { method: C["method"]; path: C["path"]; contract?: C };

export function endpoint<C extends RouteContract>(route: { method: C["method"]; path: C["path"] }): Endpoint<C> {
  return route;
}

/** A refusal: the API's `{error: {code, message}}`, its code one the contract lists, or this client's own. */
export type ApiFailure<C extends RouteContract> = Omit<MutationFailure, "code"> & {
  code: ContractErrorCode<C> | "unreachable" | "bad_answer" | "http_error";
};

export type ApiResult<C extends RouteContract, T = ContractSuccess<C>> =
  { ok: true; status: number; value: T } | ApiFailure<C>;

type QueryOf<C extends RouteContract> =
  C["query"] extends QuerySpec<unknown> ? Partial<Record<string, string>> : Record<string, never>;

/** The `{name}` parameters of the route's path; left out where it has none. */
type ParamsOf<P extends string> = [PathParamNames<P>] extends [never] ? { params?: never } : { params: PathParams<P> };

export type ApiRequest<C extends RouteContract, T> = ParamsOf<C["path"]> & {
  query?: QueryOf<C>;
  /** The JSON body, typed from the contract's body schema. */
  json?: ContractRequestBody<C>;
  /** A body the route reads itself (an uploaded file), sent as it is. */
  raw?: { body: string; contentType: string };
  /** What "could not be reached" should add (e.g. "Nothing was changed."). */
  unreachable?: string;
  /**
   * Checks a 2xx answer is the shape the caller expects; a mismatch is a failure, not a crash.
   * It may vouch for more than the schema declares (a domain type), never for something else.
   */
  accept?: (value: unknown) => value is T;
};

/**
 * Calls one /api/v1 route from the browser: the URL from the route's path and the typed
 * parameters, the body, the answer typed from the contract's response schema. Same origin, with
 * the session cookie, through sendMutation, so every failure reads the same way.
 */
export async function callApi<C extends RouteContract, T extends ContractSuccess<C> = ContractSuccess<C>>(
  route: Endpoint<C>,
  request: ApiRequest<C, T>,
): Promise<ApiResult<C, T>> {
  const { params, query, json, raw, unreachable, accept } = request;
  const answer = await sendMutation<T>(apiUrl(route, (params ?? {}) as PathParams<C["path"]>, query), {
    method: route.method,
    json,
    raw,
    unreachable,
    accept,
  });
  // The API answers only the codes its contract lists (tests/integration/api-contract.test.ts).
  return answer as ApiResult<C, T>;
}
