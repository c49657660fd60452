/**
 * Browser-session mutations must carry an Origin header naming this site. Next.js lets a
 * request with no Origin through (it only warns), and route handlers get no check at all.
 */
export function isSameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (!origin) return false;
  const host = request.headers.get("x-forwarded-host") ?? request.headers.get("host");
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}
