import { describe, expect, it } from "vitest";
import { DEFAULT_SESSION_IDLE_MS, DEFAULT_SESSION_MAX_AGE_MS, sessionPolicy } from "@/lib/auth/session-policy";

describe("session policy from the environment", () => {
  it("defaults when unset or empty; takes durations", () => {
    expect(sessionPolicy({})).toEqual({ idleMs: DEFAULT_SESSION_IDLE_MS, maxAgeMs: DEFAULT_SESSION_MAX_AGE_MS });
    expect(sessionPolicy({ IDEM_SESSION_IDLE: " ", IDEM_SESSION_MAX_AGE: "" })).toEqual({
      idleMs: DEFAULT_SESSION_IDLE_MS,
      maxAgeMs: DEFAULT_SESSION_MAX_AGE_MS,
    });
    expect(sessionPolicy({ IDEM_SESSION_IDLE: "45m", IDEM_SESSION_MAX_AGE: "8h" })).toEqual({
      idleMs: 45 * 60_000,
      maxAgeMs: 8 * 3_600_000,
    });
  });

  it.each([
    [{ IDEM_SESSION_IDLE: "half an hour" }, 'IDEM_SESSION_IDLE="half an hour" is not a duration like "30m" or "12h".'],
    [{ IDEM_SESSION_MAX_AGE: "0s" }, 'IDEM_SESSION_MAX_AGE="0s" is not a duration like "30m" or "12h".'],
    [{ IDEM_SESSION_MAX_AGE: "-1h" }, 'IDEM_SESSION_MAX_AGE="-1h" is not a duration like "30m" or "12h".'],
  ])("%j is named as a problem, never taken as the default silently", (env, message) => {
    expect(() => sessionPolicy(env)).toThrow(message);
  });
});
