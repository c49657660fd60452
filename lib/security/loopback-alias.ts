/** Names every machine gives itself: a console reached by one is the same console as by another. */
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * A page request that reached the console by another loopback name than its public URL's
 * (`http://127.0.0.1:3000` for `http://localhost:3000`, as Next's own start-up line prints it):
 * the same path at the public URL, else null. The session cookie and the Origin check belong to
 * the public URL's host, so under the other name sign-in would bounce and every change be refused.
 */
export function loopbackAliasRedirect(
  publicUrl: string | undefined,
  host: string | null,
  pathAndSearch: string,
): string | null {
  if (!publicUrl || !host) return null;
  let target: URL;
  let reached: URL;
  try {
    target = new URL(publicUrl);
    reached = new URL(`${target.protocol}//${host}`);
  } catch {
    return null;
  }
  const sameMachine = LOOPBACK_HOSTS.has(target.hostname) && LOOPBACK_HOSTS.has(reached.hostname);
  if (!sameMachine || reached.hostname === target.hostname || reached.port !== target.port) return null;
  // Appended, not resolved: a path like //other.example must stay on the public origin.
  return `${target.origin}${pathAndSearch.startsWith("/") ? "" : "/"}${pathAndSearch}`;
}
