import { describe, expect, it } from "vitest";
import { parseDatabaseUrl, redactUrl } from "@/lib/db/database-url";
import { describeDatabaseError, isDatabaseUnavailable } from "@/lib/db/describe-error";

describe("DATABASE_URL", () => {
  it("accepts postgres URLs", () => {
    expect(parseDatabaseUrl("postgresql://u:p@db:5432/idem").hostname).toBe("db");
    expect(parseDatabaseUrl("postgres://db/idem").pathname).toBe("/idem");
  });

  it.each([
    ["not a url", /is not a URL/],
    ["mysql://db/idem", /must start with postgresql:\/\//],
    ["postgresql://db", /names no database/],
    ["postgresql://db/", /names no database/],
  ])("rejects %s with one clear line", (raw, message) => {
    expect(() => parseDatabaseUrl(raw)).toThrow(message);
  });

  it("never prints a password", () => {
    expect(redactUrl("postgresql://u:secret@db/idem")).toBe("postgresql://u:***@db/idem");
    expect(() => parseDatabaseUrl("mysql://u:secret@db/idem")).not.toThrow(/secret/);
  });

  it("explains driver errors in a sentence", () => {
    expect(describeDatabaseError({ code: "ECONNREFUSED" }, "postgresql://db:1/x")).toMatch(/connection refused/);
    expect(describeDatabaseError({ code: "3D000", message: "x" })).toMatch(/does not exist/);
    expect(describeDatabaseError({ errors: [{ code: "ECONNREFUSED" }] })).toMatch(/connection refused/);
    expect(describeDatabaseError({ code: "42P01", message: 'relation "idempotency" does not exist' })).toMatch(/npm run idem -- migrate/);
    expect(describeDatabaseError({ code: "P1001", message: "" })).toMatch(/connection refused/); // Prisma's "can't reach"
  });

  it("tells an unavailable database from a bad query", () => {
    expect(isDatabaseUnavailable({ code: "P1001" })).toBe(true);
    expect(isDatabaseUnavailable({ code: "P2010", meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable" } } } })).toBe(true);
    expect(isDatabaseUnavailable({ errors: [{ code: "ECONNREFUSED" }] })).toBe(true);
    expect(isDatabaseUnavailable({ code: "23505" })).toBe(false);
    expect(isDatabaseUnavailable(new Error("x"))).toBe(false);
  });
});
