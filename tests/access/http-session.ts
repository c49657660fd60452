import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";

export type HttpSession = {
  /** `name=value` of the session cookie, for a Cookie header. */
  cookie: string;
  /** The Set-Cookie line that created it, attributes and all. */
  setCookie: string;
};

const SESSION_COOKIE = /^(__Secure-)?next-auth\.session-token=/;

/**
 * Signs in with a demo account the way the sign-in form does, over plain HTTP: next-auth's CSRF
 * token (GET /api/auth/csrf), then its credentials callback. No browser needed for a cookie.
 */
export async function signInOverHttp(baseUrl: string, email: string, userAgent?: string): Promise<HttpSession> {
  // The session row keeps the user agent (lib/auth/console-sessions.ts): a browser's helper passes its own.
  const agent: Record<string, string> = userAgent ? { "user-agent": userAgent } : {};
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`, { headers: agent });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookie = csrf.headers
    .getSetCookie()
    .map((line) => line.split(";")[0])
    .join("; ");
  const response = await fetch(`${baseUrl}/api/auth/callback/demo`, {
    method: "POST",
    redirect: "manual",
    headers: { ...agent, "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email, password: DEMO_PASSWORD, callbackUrl: `${baseUrl}/`, json: "true" }),
  });
  const setCookie = response.headers.getSetCookie().find((line) => SESSION_COOKIE.test(line));
  if (!setCookie)
    throw new Error(
      `signing in as ${email} gave no session cookie (${response.status} ${response.headers.get("location") ?? ""})`,
    );
  return { cookie: setCookie.split(";")[0]!, setCookie };
}

/**
 * One password sign-in through next-auth's credentials callback, as the sign-in form posts it:
 * whether it made a session, and the error the callback named (CredentialsSignin, Throttled).
 */
export async function attemptSignIn(
  baseUrl: string,
  email: string,
  password: string,
): Promise<{ ok: boolean; error: string | null }> {
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  const cookie = (csrf.headers.getSetCookie?.() ?? []).map((c) => c.split(";")[0]).join("; ");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const response = await fetch(`${baseUrl}/api/auth/callback/demo`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: baseUrl },
    body: new URLSearchParams({ csrfToken, email, password, callbackUrl: "/", json: "true" }),
  });
  const location =
    response.headers.get("location") ?? ((await response.json().catch(() => ({}))) as { url?: string }).url ?? "";
  const error = new URL(location, baseUrl).searchParams.get("error");
  return {
    ok: error === null && (response.headers.getSetCookie?.() ?? []).some((c) => c.includes("session-token")),
    error,
  };
}
