import "server-only";
import { apiRoute } from "@/lib/api/api-route";
import { ERROR_STATUS } from "@/lib/api/error-status";
import { jsonError } from "@/lib/api/json-error";
import { API_CACHE_CONTROL } from "@/lib/security/security-headers";

/** The methods every /api/v1 route file answers or refuses; Next derives HEAD from GET. */
export const ROUTE_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

/** A refusal takes any route's params: it never reads them. */
type Refusal = (request: Request, context: { params: Promise<unknown> }) => Promise<Response>;

/**
 * The handlers for the methods a route file does not serve, so that they answer the API's JSON
 * 405 instead of Next's empty one: `export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed("GET");`.
 * The caller is checked first, like every route, so an anonymous status never tells which routes exist.
 * The type leaves out the allowed methods: destructuring one of them does not compile.
 * It answers OPTIONS too: Next's own would list every method the file exports, refusals included.
 */
export function methodsNotAllowed<const Allowed extends RouteMethod>(
  ...allowed: [Allowed, ...Allowed[]]
): Omit<Record<RouteMethod, Refusal>, Allowed> & { OPTIONS: Refusal } {
  const served = ROUTE_METHODS.filter((method) => (allowed as RouteMethod[]).includes(method));
  const allow = [...served, ...(served.includes("GET") ? ["HEAD"] : [])].join(", ");
  const refusal: Refusal = apiRoute<unknown>("records:read", async ({ request }) => {
    const path = new URL(request.url).pathname;
    const response = jsonError(
      ERROR_STATUS.method_not_allowed,
      "method_not_allowed",
      `${request.method} is not allowed on ${path}; it answers ${served.join(", ")}.`,
    );
    response.headers.set("Allow", allow);
    return response;
  });
  const refused = ROUTE_METHODS.filter((method) => !served.includes(method));
  // Behind the same check: an anonymous OPTIONS must not tell a route from a path that has none.
  const options: Refusal = apiRoute<unknown>(
    "records:read",
    async () =>
      new Response(null, {
        status: 204,
        headers: { Allow: `${allow}, OPTIONS`, "cache-control": API_CACHE_CONTROL },
      }),
  );
  return { ...Object.fromEntries(refused.map((method) => [method, refusal])), OPTIONS: options } as Omit<
    Record<RouteMethod, Refusal>,
    Allowed
  > & { OPTIONS: Refusal };
}
