import { describe, expect, it } from "vitest";
import { mayPrepareStatements, preparedStatementName } from "@/lib/db/prepared-statements";

const DIRECT = "postgresql://idem@db.internal:5432/idem";

describe("mayPrepareStatements", () => {
  it("prepares on a direct connection to PostgreSQL", () => {
    expect(mayPrepareStatements(DIRECT, false)).toBe(true);
  });

  it("not behind a transaction pooler, whose next transaction may run on another server connection", () => {
    expect(mayPrepareStatements(`${DIRECT}?pgbouncer=true`, false)).toBe(false);
  });

  it("not on the embedded database, whose connections share one session", () => {
    expect(mayPrepareStatements(DIRECT, true)).toBe(false);
  });
});

describe("preparedStatementName", () => {
  it("is the same for one text and differs between texts of one purpose", () => {
    const admin = "SELECT 1 FROM idempotency WHERE key = $1";
    const scoped = "SELECT 1 FROM idempotency WHERE key = $1 AND tenant = ANY($2)";
    expect(preparedStatementName("record_detail", admin)).toBe(preparedStatementName("record_detail", admin));
    expect(preparedStatementName("record_detail", admin)).not.toBe(preparedStatementName("record_detail", scoped));
    // PostgreSQL cuts names at 63 bytes: a cut would make two names one.
    expect(preparedStatementName("record_detail", scoped).length).toBeLessThanOrEqual(63);
  });
});
