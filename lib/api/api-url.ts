/** The `{name}` parameters a route's path holds: `"/api/v1/records/{key}"` gives `"key"`. */
export type PathParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | PathParamNames<Rest>
  : never;

export type PathParams<P extends string> = { [N in PathParamNames<P>]: string };

/**
 * A route's URL from its path (lib/api/routes.ts): each `{name}` filled with its value,
 * URL-encoded, and the query, if any, after it. Same-origin, so relative.
 */
export function apiUrl<P extends string>(
  route: { path: P },
  params: PathParams<P>,
  query?: Record<string, string | undefined>,
): string {
  const values = params as Record<string, string>;
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ""));
  const search = new URLSearchParams(
    Object.entries(query ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  return search ? `${path}?${search}` : path;
}
