import { afterEach, describe, expect, it } from "vitest";
import { env, parseEnvironment, resetEnvironment } from "@/lib/config/environment";

describe("the environment, parsed by one schema", () => {
  it("blank means unset; flags are 1 or 0; numbers and durations arrive parsed", () => {
    const parsed = parseEnvironment({
      DATABASE_URL: " ",
      IDEM_DEMO: "1",
      IDEM_TRUST_PROXY: "0",
      IDEM_EMBEDDED_PORT: "5433",
      IDEM_DEMO_HISTORY_HOURS: "0",
      IDEM_SESSION_IDLE: "45m",
    });
    expect(parsed).toMatchObject({
      DATABASE_URL: undefined,
      IDEM_DEMO: true,
      IDEM_TRUST_PROXY: false,
      IDEM_EMBEDDED_PORT: 5433,
      IDEM_DEMO_HISTORY_HOURS: 0,
      IDEM_SESSION_IDLE: 45 * 60_000,
      IDEM_DEBUG: false,
    });
  });

  it.each([
    [{ IDEM_DEMO: "true" }, 'IDEM_DEMO="true" must be 1 or 0 (or unset).'],
    [{ IDEM_EMBEDDED_PORT: "54329x" }, 'IDEM_EMBEDDED_PORT="54329x" must be a port number from 0 to 65535.'],
    [{ IDEM_DEMO_HISTORY_HOURS: "-2" }, 'IDEM_DEMO_HISTORY_HOURS="-2" must be a whole number of hours, 0 or more.'],
    [{ NEXTAUTH_URL: "idem.example.com" }, 'NEXTAUTH_URL="idem.example.com" must be an http:// or https:// URL.'],
    [{ OIDC_ISSUER: "ftp://sso" }, 'OIDC_ISSUER="ftp://sso" must be an http:// or https:// URL.'],
  ])("%j is refused with a line naming the variable", (variables, message) => {
    expect(() => parseEnvironment(variables)).toThrow(message);
  });

  it("names every bad variable at once", () => {
    expect(() => parseEnvironment({ IDEM_DEBUG: "yes", IDEM_SESSION_MAX_AGE: "forever" })).toThrow(
      'IDEM_SESSION_MAX_AGE="forever" is not a duration like "30m" or "12h"; IDEM_DEBUG="yes" must be 1 or 0 (or unset).',
    );
  });

  const saved = process.env.IDEM_DATA_DIR;
  afterEach(() => {
    process.env.IDEM_DATA_DIR = saved;
    if (saved === undefined) delete process.env.IDEM_DATA_DIR;
    resetEnvironment();
  });

  it("is read once: a later change shows only after resetEnvironment()", () => {
    process.env.IDEM_DATA_DIR = "/tmp/first";
    expect(env().IDEM_DATA_DIR).toBe("/tmp/first");
    process.env.IDEM_DATA_DIR = "/tmp/second";
    expect(env().IDEM_DATA_DIR).toBe("/tmp/first");
    resetEnvironment();
    expect(env().IDEM_DATA_DIR).toBe("/tmp/second");
  });
});
