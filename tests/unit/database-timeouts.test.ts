import { describe, expect, it } from "vitest";
import { parseEnvironment } from "@/lib/config/environment";
import { parseConfig } from "@/lib/config/load";
import { consoleTimeouts } from "@/lib/db/timeouts";

describe("the console's database time limits", () => {
  it("default to a short page/API limit, a longer export limit and a short lock limit", () => {
    const { database } = parseConfig("{}");
    expect(consoleTimeouts("interactive", database, {})).toEqual({
      connectMs: 5_000,
      statementMs: 5_000,
      lockMs: 2_000,
    });
    expect(consoleTimeouts("export", database, {})).toEqual({ connectMs: 5_000, statementMs: 60_000, lockMs: 2_000 });
  });

  it("come from idem.config.json, and IDEM_DB_* overrides them", () => {
    const { database } = parseConfig(
      JSON.stringify({
        database: { statementTimeout: "2s", lockTimeout: "500ms", exportStatementTimeout: "5m", connectTimeout: "1s" },
      }),
    );
    expect(consoleTimeouts("export", database, {})).toEqual({ connectMs: 1_000, statementMs: 300_000, lockMs: 500 });
    expect(
      consoleTimeouts("interactive", database, parseEnvironment({ IDEM_DB_STATEMENT_TIMEOUT: "750ms" })).statementMs,
    ).toBe(750);
  });

  it("refuse a limit that is not a duration, naming the field or the variable", () => {
    expect(() => parseConfig(JSON.stringify({ database: { statementTimeout: "soon" } }))).toThrow(
      /database\.statementTimeout/,
    );
    expect(() => parseConfig(JSON.stringify({ database: { lockTimout: "1s" } }))).toThrow(/lockTimout/);
    expect(() => parseEnvironment({ IDEM_DB_LOCK_TIMEOUT: "0s" })).toThrow(/IDEM_DB_LOCK_TIMEOUT/);
  });
});
