import { describe, expect, it } from "vitest";
import { judgeFlat, MIN_READINGS } from "@/tools/bench/soak/soak-flat";
import type { SoakRequest } from "@/tools/bench/soak/soak-requests";
import type { SoakSample } from "@/tools/bench/soak/soak-sample";
import { judgeAnswer } from "@/tools/bench/soak/soak-verdict";

// The soak's verdict on each answer and on memory and connections over time (docs/bench.md#soak).
// The whole run takes minutes (a production build, a PostgreSQL cluster of its own), so its rules
// are held here, on answers made by hand.

const api: SoakRequest = { name: "records list", routeClass: "api read", method: "GET", path: "/api/v1/records" };
const page: SoakRequest = { name: "/records", routeClass: "page", method: "GET", path: "/records" };

function answer(status: number, body: string, headers: Record<string, string>, landedAt = "/api/v1/records") {
  const response = new Response(body, { status, headers });
  // fetch sets url to where the redirects ended; a Response made by hand has none.
  Object.defineProperty(response, "url", { value: `http://127.0.0.1:3000${landedAt}` });
  return response;
}
const json = { "content-type": "application/json" };
const html = { "content-type": "text/html; charset=utf-8" };
const error = (code: string) => JSON.stringify({ error: { code, message: "…" } });

describe("the soak's verdict on an answer", () => {
  it("counts a documented 503 (database_unavailable or database_timeout, with Retry-After) and does not fail", () => {
    for (const code of ["database_unavailable", "database_timeout"]) {
      const verdict = judgeAnswer(api, answer(503, error(code), { ...json, "retry-after": "5" }), error(code));
      expect(verdict).toMatchObject({ label: `503 ${code}`, failure: false });
    }
  });

  it("fails a 503 without Retry-After, a 503 of another code, and any other 5xx", () => {
    expect(
      judgeAnswer(api, answer(503, error("database_unavailable"), json), error("database_unavailable")).failure,
    ).toBe(true);
    const other = error("processor_unavailable");
    expect(judgeAnswer(api, answer(503, other, { ...json, "retry-after": "5" }), other).failure).toBe(true);
    expect(judgeAnswer(api, answer(500, error("internal"), json), error("internal"))).toMatchObject({
      label: "500 internal",
      failure: true,
    });
    expect(judgeAnswer(api, answer(502, "bad gateway", {}), "bad gateway").failure).toBe(true);
  });

  it("fails HTML on /api whatever its status", () => {
    expect(judgeAnswer(api, answer(200, "<!doctype html>", html), "<!doctype html>")).toMatchObject({
      label: "200 HTML on /api",
      failure: true,
    });
  });

  it("counts a refusal by its code without failing", () => {
    const body = error("outcome_unknown");
    expect(judgeAnswer(api, answer(409, body, json), body)).toMatchObject({
      label: "409 outcome_unknown",
      failure: false,
    });
  });

  it("counts a page that lands on the 503 page, and fails one that lands on sign-in or answers 500", () => {
    const down = answer(503, "<html>", { ...html, "retry-after": "5" }, "/database-unavailable?from=%2Frecords");
    expect(judgeAnswer(page, down, "<html>")).toMatchObject({ label: "503 page", failure: false });
    const noRetryAfter = answer(503, "<html>", html, "/database-unavailable");
    expect(judgeAnswer(page, noRetryAfter, "<html>").failure).toBe(true);
    expect(judgeAnswer(page, answer(200, "<html>", html, "/sign-in?callbackUrl=%2F"), "<html>")).toMatchObject({
      label: "200 signed out",
      failure: true,
    });
    expect(judgeAnswer(page, answer(500, "<html>", html, "/records"), "<html>").failure).toBe(true);
    expect(judgeAnswer(page, answer(200, "<html>", html, "/records"), "<html>")).toMatchObject({
      label: "200",
      failure: false,
    });
  });
});

function samples(rss: number[], connections: number[] = rss.map(() => 5)): SoakSample[] {
  return rss.map((rssMiB, i) => ({
    atSeconds: (i + 1) * 10,
    requests: 1,
    byClass: {},
    failures: 0,
    p50Ms: 1,
    p99Ms: 1,
    rssMiB,
    connections: { "idem-console": connections[i]! - 1, "idem-console:export": 1, "idem-soak-other": 40 },
    events: [],
  }));
}

describe("the soak's verdict on memory and connections over time", () => {
  it("passes a run whose last third stays within 1.2 × the first third's max", () => {
    const rss = Array.from({ length: 30 }, (_, i) => 400 + (i % 5) * 10 + (i >= 20 ? 30 : 0));
    expect(judgeFlat(samples(rss)).map((f) => f.held)).toEqual([true, true]);
  });

  it("fails memory that keeps growing", () => {
    const rss = Array.from({ length: 30 }, (_, i) => 400 + i * 10);
    const [memory] = judgeFlat(samples(rss));
    expect(memory).toMatchObject({
      what: "console RSS",
      firstThirdMax: 490,
      lastThirdMax: 690,
      bound: 588,
      held: false,
    });
  });

  it("counts only the console's connections, and allows two more than 1.2 × the first third's max", () => {
    const flat = Array.from({ length: 30 }, () => 400);
    const at = (last: number) => Array.from({ length: 30 }, (_, i) => (i >= 20 ? last : 5));
    expect(judgeFlat(samples(flat, at(8)))[1]).toMatchObject({ bound: 8, held: true });
    expect(judgeFlat(samples(flat, at(9)))[1]).toMatchObject({ lastThirdMax: 9, held: false });
  });

  it("leaves a run too short to show a trend unjudged, and says so", () => {
    const rss = Array.from({ length: MIN_READINGS - 1 }, (_, i) => 300 + i * 50);
    expect(judgeFlat(samples(rss))[0]).toMatchObject({ held: true, bound: null });
    expect(judgeFlat(samples(rss))[0]!.detail).toContain("not judged");
  });
});
