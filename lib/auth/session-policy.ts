import { env, parseEnvironment } from "@/lib/config/environment";

/**
 * How long a browser session lasts. Idle: no request for this long ends it (a console left open
 * on a support desk). Absolute: it ends this long after sign-in whatever happens, so a stolen
 * cookie is worth a working day at most. IDEM_SESSION_IDLE / IDEM_SESSION_MAX_AGE ("45m", "8h")
 * override them; the server refuses to start with a value that is not a duration
 * (lib/config/environment.ts, checked at startup), so a typo never silently means the default.
 */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_SESSION_MAX_AGE_MS = 12 * 3_600_000;
/** last_seen_at is written at most this often per session: a page load makes several requests. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

export type SessionPolicy = { idleMs: number; maxAgeMs: number };

type Variables = Readonly<Record<string, string | undefined>>;

/** The session limits: this process's environment (validated at startup), or a given set of variables (tests). */
export function sessionPolicy(variables?: Variables): SessionPolicy {
  const { IDEM_SESSION_IDLE, IDEM_SESSION_MAX_AGE } = variables ? parseEnvironment(variables) : env();
  return {
    idleMs: IDEM_SESSION_IDLE ?? DEFAULT_SESSION_IDLE_MS,
    maxAgeMs: IDEM_SESSION_MAX_AGE ?? DEFAULT_SESSION_MAX_AGE_MS,
  };
}
