import { describe, expect, it } from "vitest";
import { healthAnswer } from "@/lib/api/health-answer";

describe("/api/health's answer", () => {
  it("is the figures, 200, when the database answers", async () => {
    const answer = healthAnswer({ ok: true, database: "reachable" });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("retry-after")).toBeNull();
    expect(await answer.json()).toEqual({ ok: true, database: "reachable" });
  });

  it("is the API's error shape, 503 with Retry-After, naming the primary's reason", async () => {
    const answer = healthAnswer({ ok: false, database: "connection refused (ECONNREFUSED)" });
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("5");
    expect(await answer.json()).toEqual({
      error: {
        code: "database_unavailable",
        message: "The console cannot reach its database: connection refused (ECONNREFUSED). Try again shortly.",
        database: "connection refused (ECONNREFUSED)",
      },
    });
  });

  it("names the read replica when it is the one that does not answer", async () => {
    const replica = { state: "unreachable" as const, reason: "timeout" };
    const answer = healthAnswer({ ok: false, database: "reachable", replica });
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({
      error: {
        code: "database_unavailable",
        message: "The console cannot reach its read replica: timeout. Try again shortly.",
        database: "reachable",
        replica,
      },
    });
  });
});
