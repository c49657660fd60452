import { describe, expect, it } from "vitest";
import { parseDatabaseUrl, redactUrl } from "@/lib/db/database-url";
import { databaseFaultOf, describeDatabaseError, isDatabaseUnavailable } from "@/lib/db/describe-error";

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
    expect(describeDatabaseError({ code: "42P01", message: 'relation "idempotency" does not exist' })).toMatch(
      /npm run idem -- migrate/,
    );
    expect(describeDatabaseError({ code: "P1001", message: "" })).toMatch(/connection refused/); // Prisma's "can't reach"
  });

  it("says nothing of a message an adapter's verdict did not carry", () => {
    const verdicts = ["TableDoesNotExist", "AuthenticationFailed"].map((kind) => ({ kind }));
    for (const verdict of [...verdicts, { code: "57P01" }, { code: "57014" }, { code: "55P03" }])
      expect(describeDatabaseError(verdict)).not.toMatch(/undefined|\(\)/);
    expect(describeDatabaseError({ kind: "TableDoesNotExist" })).toBe(
      "The database has no console tables yet. Run: npm run idem -- migrate",
    );
  });

  it("tells an unavailable database from a bad query", () => {
    expect(isDatabaseUnavailable({ code: "P1001" })).toBe(true);
    expect(
      isDatabaseUnavailable({
        code: "P2010",
        meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable" } } },
      }),
    ).toBe(true);
    expect(isDatabaseUnavailable({ errors: [{ code: "ECONNREFUSED" }] })).toBe(true);
    expect(isDatabaseUnavailable({ code: "23505" })).toBe(false);
    expect(isDatabaseUnavailable(new Error("x"))).toBe(false);
  });

  it("names every spelling of a database fault that Prisma 7, @prisma/adapter-pg and pg produce", () => {
    const raw = (code: string, message: string) => ({
      code: "P2010",
      message: `Raw query failed. Code: \`${code}\``,
      meta: { driverAdapterError: { cause: { kind: "postgres", code, message } } },
    });
    // Seen through the fault proxy and on PostgreSQL (pg_terminate_backend, a shutdown, refused, black-holed).
    for (const error of [
      raw("57P01", "terminating connection due to administrator command"),
      raw("57P03", "the database system is shutting down"),
      { code: "P2010", meta: { driverAdapterError: { cause: { kind: "ConnectionClosed" } } } },
      { code: "P1017", message: "Server has closed the connection." },
      new Error("timeout exceeded when trying to connect"),
      new Error("Connection terminated unexpectedly"),
      Object.assign(new Error("Connection terminated due to connection timeout"), {
        cause: new Error("Connection terminated unexpectedly"),
      }),
      new Error("Query read timeout"),
      Object.assign(new Error("ConnectionClosed"), { name: "DriverAdapterError", cause: { kind: "ConnectionClosed" } }), // a transaction's BEGIN/ROLLBACK
      { code: "57P03", message: "the database system is starting up" },
      { code: "P2010", meta: { driverAdapterError: { cause: { kind: "TooManyConnections" } } } },
    ]) {
      expect(databaseFaultOf(error), JSON.stringify(error) + String(error)).toBe("unavailable");
    }
    expect(databaseFaultOf(raw("57014", "canceling statement due to statement timeout"))).toBe("timeout");
    expect(databaseFaultOf(raw("55P03", "canceling statement due to lock timeout"))).toBe("locked");
    expect(databaseFaultOf(raw("23505", "duplicate key value violates unique constraint"))).toBeNull();
    expect(databaseFaultOf(raw("42601", "syntax error at or near"))).toBeNull();
    expect(describeDatabaseError(raw("57P03", "the database system is shutting down"))).toMatch(/shutting down/);
  });
});
