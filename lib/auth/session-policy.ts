import { parseDuration } from "@/lib/config/duration";

/**
 * How long a browser session lasts. Idle: no request for this long ends it (a console left open
 * on a support desk). Absolute: it ends this long after sign-in whatever happens, so a stolen
 * cookie is worth a working day at most. IDEM_SESSION_IDLE / IDEM_SESSION_MAX_AGE ("45m", "8h")
 * override them; an unparsable value keeps the default and says so once.
 */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
export const DEFAULT_SESSION_MAX_AGE_MS = 12 * 3_600_000;
/** last_seen_at is written at most this often per session: a page load makes several requests. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

export type SessionPolicy = { idleMs: number; maxAgeMs: number };

function fromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const ms = parseDuration(raw);
  if (ms === null || ms <= 0) {
    console.warn(`${name}=${JSON.stringify(raw)} is not a duration like "30m" or "12h"; using the default.`);
    return fallback;
  }
  return ms;
}

export function sessionPolicy(): SessionPolicy {
  return { idleMs: fromEnv("IDEM_SESSION_IDLE", DEFAULT_SESSION_IDLE_MS), maxAgeMs: fromEnv("IDEM_SESSION_MAX_AGE", DEFAULT_SESSION_MAX_AGE_MS) };
}
