import { parseDuration } from "@/lib/config/duration";

/**
 * How long a browser session lasts. Idle: no request for this long ends it (a console left open
 * on a support desk). Absolute: it ends this long after sign-in whatever happens, so a stolen
 * cookie is worth a working day at most. IDEM_SESSION_IDLE / IDEM_SESSION_MAX_AGE ("45m", "8h")
 * override them; the server refuses to start with a value that is not a duration
 * (sessionPolicyProblem, checked at startup), so a typo never silently means the default.
 */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_SESSION_MAX_AGE_MS = 12 * 3_600_000;
/** last_seen_at is written at most this often per session: a page load makes several requests. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

export type SessionPolicy = { idleMs: number; maxAgeMs: number };

const SETTINGS = [
  ["IDEM_SESSION_IDLE", DEFAULT_SESSION_IDLE_MS],
  ["IDEM_SESSION_MAX_AGE", DEFAULT_SESSION_MAX_AGE_MS],
] as const;

type Env = Record<string, string | undefined>;

/** The setting's duration; the default when unset; null when set to something that is not a positive duration. */
function fromEnv(env: Env, name: string, fallback: number): number | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const ms = parseDuration(raw);
  return ms === null || ms <= 0 ? null : ms;
}

/** What is wrong with the session settings, in one line; null when nothing is. */
export function sessionPolicyProblem(env: Env = process.env): string | null {
  for (const [name, fallback] of SETTINGS) {
    if (fromEnv(env, name, fallback) === null) return `${name}=${JSON.stringify(env[name])} is not a duration like "30m" or "12h".`;
  }
  return null;
}

export function sessionPolicy(env: Env = process.env): SessionPolicy {
  // Startup refused invalid values; the defaults here only cover a process that skipped that check (a script).
  return {
    idleMs: fromEnv(env, "IDEM_SESSION_IDLE", DEFAULT_SESSION_IDLE_MS) ?? DEFAULT_SESSION_IDLE_MS,
    maxAgeMs: fromEnv(env, "IDEM_SESSION_MAX_AGE", DEFAULT_SESSION_MAX_AGE_MS) ?? DEFAULT_SESSION_MAX_AGE_MS,
  };
}
