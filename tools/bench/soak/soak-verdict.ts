import type { SoakRequest } from "./soak-requests";

/** How an answer is counted: its label in the tables, and whether it breaks the run. */
export type Verdict = { label: string; failure: boolean; detail: string };

/**
 * Where a page lands while its database cannot answer (DATABASE_UNAVAILABLE_PATH in
 * lib/db/page-fault.ts, which imports next/navigation and so cannot load in the CLI).
 */
const DATABASE_UNAVAILABLE_PATH = "/database-unavailable";

/** The 503s docs/api.md and docs/operations.md promise while the database cannot answer. */
const DOCUMENTED_503_CODES = new Set(["database_unavailable", "database_timeout"]);

/**
 * The rules of the soak: the API answers JSON (never an HTML page) and no 5xx but a documented
 * 503 — `database_unavailable` or `database_timeout` with Retry-After; a page answers, or lands on
 * the 503 page (/database-unavailable, with Retry-After), and never on the sign-in page (a restart
 * must not sign anyone out).
 */
export function judgeAnswer(request: SoakRequest, response: Response, text: string): Verdict {
  const status = response.status;
  const html = (response.headers.get("content-type") ?? "").includes("text/html");
  const retryAfter = response.headers.get("retry-after") !== null;
  const detail = text.slice(0, 300);
  if (request.routeClass !== "page") {
    if (html) return { label: `${status} HTML on /api`, failure: true, detail };
    const code = errorCodeOf(text);
    if (status === 503 && code !== null && DOCUMENTED_503_CODES.has(code) && retryAfter)
      return { label: `503 ${code}`, failure: false, detail };
    if (status >= 500) return { label: `${status} ${code ?? "(no error code)"}`, failure: true, detail };
    return { label: code ? `${status} ${code}` : String(status), failure: false, detail };
  }
  const landed = new URL(response.url).pathname;
  if (landed === DATABASE_UNAVAILABLE_PATH)
    return status === 503 && html && retryAfter
      ? { label: "503 page", failure: false, detail }
      : { label: `${status} at ${DATABASE_UNAVAILABLE_PATH} (not the 503 page)`, failure: true, detail };
  if (status >= 500) return { label: String(status), failure: true, detail };
  if (landed === "/sign-in") return { label: `${status} signed out`, failure: true, detail };
  return { label: String(status), failure: false, detail };
}

function errorCodeOf(text: string): string | null {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } } | null)?.error?.code;
    return typeof code === "string" ? code : null;
  } catch {
    return null;
  }
}
