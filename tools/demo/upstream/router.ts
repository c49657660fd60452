import { HttpError } from "./json-http";

export interface RouteDefinition {
  method: "GET" | "POST" | "PATCH";
  /** Literal segments and `:name` parameters, e.g. "/references/:reference". */
  path: string;
}

export type RouteMatch<R> = { route: R; params: Record<string, string> } | { allow: string[] } | undefined;

function matchPath(pattern: string, pathname: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const have = pathname.split("/");
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, segment] of want.entries()) {
    const actual = have[index] ?? "";
    if (segment.startsWith(":")) {
      if (actual === "") return undefined;
      try {
        params[segment.slice(1)] = decodeURIComponent(actual);
      } catch {
        throw new HttpError(400, "invalid_path", `malformed percent-encoding in ${segment.slice(1)}`);
      }
    } else if (segment !== actual) {
      return undefined;
    }
  }
  return params;
}

/** A route for this method and path; else the methods the path does allow (for a 405); else nothing (404). */
export function matchRoute<R extends RouteDefinition>(
  routes: readonly R[],
  method: string,
  pathname: string,
): RouteMatch<R> {
  const allow: string[] = [];
  for (const route of routes) {
    const params = matchPath(route.path, pathname);
    if (!params) continue;
    if (route.method === method) return { route, params };
    allow.push(route.method);
  }
  return allow.length > 0 ? { allow } : undefined;
}
