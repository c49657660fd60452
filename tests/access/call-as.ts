import type { Answer } from "./access-requests";

/** How a caller presents itself: a session cookie (a browser), a bearer token, or nothing. */
export type Credentials = { cookie?: string; bearer?: string };

export type Call = {
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  /** The Origin header to send; browsers send their own on every POST, so sessions default to the console's. */
  origin?: string | null;
};

/** One request to the running console, redirects not followed, the answer read whole. */
export async function callAs(baseUrl: string, credentials: Credentials, call: Call): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (credentials.cookie) headers.cookie = credentials.cookie;
  if (credentials.bearer) headers.authorization = `Bearer ${credentials.bearer}`;
  if (call.contentType) headers["content-type"] = call.contentType;
  const origin =
    call.origin === undefined ? (credentials.cookie && call.method !== "GET" ? baseUrl : null) : call.origin;
  if (origin !== null) headers.origin = origin;
  const response = await fetch(`${baseUrl}${call.path}`, {
    method: call.method,
    headers,
    redirect: "manual",
    ...(call.method === "GET" || call.method === "HEAD" ? {} : { body: call.body ?? "" }),
  });
  return {
    status: response.status,
    location: response.headers.get("location"),
    contentType: response.headers.get("content-type") ?? "",
    text: await response.text(),
  };
}

/** Runs `work` over `items`, at most `limit` at a time (the suite shares 2 cores). */
export async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}
