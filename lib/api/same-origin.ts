import { env, parseEnvironment } from "@/lib/config/environment";

/**
 * Browser-session mutations must carry an Origin header naming this site. Next.js lets a
 * request with no Origin through (it only warns), and route handlers get no check at all.
 *
 * "This site" is the configured public origin — scheme, host and port of NEXTAUTH_URL — never
 * whatever Host or X-Forwarded-Host a request claims (either can be set by the caller, and a
 * host-only compare let `https://…` pass on an http site). Behind a reverse proxy that sets
 * X-Forwarded-Proto/-Host itself, IDEM_TRUST_PROXY=1 also accepts the origin those headers name.
 * Without NEXTAUTH_URL (the launcher always sets one) the request's own URL stands in.
 */
export function isSameOrigin(request: Request, variables?: Readonly<Record<string, string | undefined>>): boolean {
  const { NEXTAUTH_URL, IDEM_TRUST_PROXY } = variables ? parseEnvironment(variables) : env();
  const origin = originOf(request.headers.get("origin"));
  if (!origin) return false;
  if (origin === (originOf(NEXTAUTH_URL) ?? originOf(request.url))) return true;
  return IDEM_TRUST_PROXY && origin === forwardedOrigin(request);
}

/** scheme://host[:port] of a URL, normalised (default ports dropped, host lower-cased); null when not http(s). */
function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.origin : null;
  } catch {
    return null;
  }
}

/** The origin a trusted proxy says the browser used (first value of each forwarded header). */
function forwardedOrigin(request: Request): string | null {
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim();
  const proto =
    request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() ?? new URL(request.url).protocol.replace(/:$/, "");
  return host ? originOf(`${proto}://${host}`) : null;
}
