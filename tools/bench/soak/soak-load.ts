import { performance } from "node:perf_hooks";
import { readBody } from "@/tools/bench/read-body";
import { judgeAnswer, type Verdict } from "./soak-verdict";
import { REQUEST_MIX, type MutationKind, type RouteClass, type SoakRequest } from "./soak-requests";
import type { SoakTargets } from "./soak-targets";

/** One mutation the load sent, with what came back: the invariants check each against the database. */
export type SentMutation = {
  kind: MutationKind;
  keys: string[];
  status: number | null;
  auditIds: string[];
};

/** A request that answered what it must never answer, kept whole for the report (the first 20). */
export type Failure = { at: string; name: string; path: string; label: string; detail: string };

/** What happened in one sampling window. */
export type LoadWindow = {
  requests: number;
  /** Label ("200", "503 database_unavailable", "503 page", "network error", …) → count, per route class. */
  byClass: Map<RouteClass, Map<string, number>>;
  latenciesMs: number[];
  failures: number;
};

export type SoakLoad = {
  /** Hands over the window so far and starts a new one. */
  takeWindow(): LoadWindow;
  stop(): Promise<void>;
  mutations: SentMutation[];
  failures: Failure[];
  /** Every request's latency per route class, for the summary. */
  latencies: Map<RouteClass, number[]>;
  totals: Map<RouteClass, Map<string, number>>;
  failureCount(): number;
};

export type LoadServer = { baseUrl: string; authorization: string; sessionCookie: string };

/** A request still unanswered after this long is a failure: the console must answer, if only with a 503. */
const CLIENT_TIMEOUT_MS = 90_000;
const KEPT_FAILURES = 20;

const emptyWindow = (): LoadWindow => ({ requests: 0, byClass: new Map(), latenciesMs: [], failures: 0 });

/**
 * `users` closed-loop users, each cycling through REQUEST_MIX from its own start: API requests with
 * the admin token, pages with the signed-in session cookie (following redirects, as a browser does:
 * a page whose database is down lands on the 503 page). Every answer is judged (soak-verdict.ts).
 * `restarting()` says whether a database restart was under way while a request ran, for an export
 * whose stream a restart cut.
 */
export function startSoakLoad(
  server: LoadServer,
  targets: SoakTargets,
  users: number,
  restartedDuring: (fromMs: number, toMs: number) => boolean,
): SoakLoad {
  const stopping = new AbortController();
  let window = emptyWindow();
  const totals = new Map<RouteClass, Map<string, number>>();
  const latencies = new Map<RouteClass, number[]>();
  const mutations: SentMutation[] = [];
  const failures: Failure[] = [];
  let failureCount = 0;

  const count = (map: Map<RouteClass, Map<string, number>>, routeClass: RouteClass, label: string) => {
    const labels = map.get(routeClass) ?? new Map<string, number>();
    labels.set(label, (labels.get(label) ?? 0) + 1);
    map.set(routeClass, labels);
  };

  const record = (request: SoakRequest, verdict: Verdict, ms: number) => {
    window.requests += 1;
    count(window.byClass, request.routeClass, verdict.label);
    count(totals, request.routeClass, verdict.label);
    window.latenciesMs.push(ms);
    const list = latencies.get(request.routeClass) ?? [];
    list.push(ms);
    latencies.set(request.routeClass, list);
    if (verdict.failure) {
      window.failures += 1;
      failureCount += 1;
      if (failures.length < KEPT_FAILURES)
        failures.push({
          at: new Date().toISOString(),
          name: request.name,
          path: request.path,
          label: verdict.label,
          detail: verdict.detail,
        });
    }
  };

  const send = async (request: SoakRequest) => {
    const page = request.routeClass === "page";
    const started = performance.now();
    const signal = AbortSignal.any([stopping.signal, AbortSignal.timeout(CLIENT_TIMEOUT_MS)]);
    let verdict: Verdict;
    let auditIds: string[] = [];
    let status: number | null = null;
    try {
      const response = await fetch(`${server.baseUrl}${request.path}`, {
        method: request.method,
        headers: {
          ...(page ? { cookie: server.sessionCookie } : { authorization: server.authorization }),
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        redirect: page ? "follow" : "manual",
        signal,
      });
      status = response.status;
      const streamed = request.routeClass === "api export" && response.ok;
      const text = streamed ? "" : await response.text();
      if (streamed) await readBody(response, undefined, signal);
      verdict = judgeAnswer(request, response, text);
      if (request.mutation && response.ok) auditIds = auditIdsOf(text);
    } catch (error) {
      if (stopping.signal.aborted) return;
      const cutByRestart = restartedDuring(started, performance.now());
      verdict = failedRequest(error, status, cutByRestart);
    }
    record(request, verdict, performance.now() - started);
    if (request.mutation) mutations.push({ ...request.mutation, status, auditIds });
  };

  const user = async (u: number) => {
    for (let i = u * 5; !stopping.signal.aborted; i += 1) {
      const request = REQUEST_MIX[i % REQUEST_MIX.length]!(targets, Math.floor(i / REQUEST_MIX.length) + u);
      if (request) await send(request);
    }
  };
  const running = Promise.all(Array.from({ length: users }, (_, u) => user(u)));

  return {
    takeWindow() {
      const taken = window;
      window = emptyWindow();
      return taken;
    },
    async stop() {
      stopping.abort();
      await running;
    },
    mutations,
    failures,
    latencies,
    totals,
    failureCount: () => failureCount,
  };
}

/** A fetch that threw: no answer at all, or (an export) a stream cut short — which a restart may do, and nothing else may. */
function failedRequest(error: unknown, status: number | null, cutByRestart: boolean): Verdict {
  const message = error instanceof Error ? `${error.message}${causeOf(error)}` : String(error);
  if (status !== null && status < 300 && cutByRestart)
    return { label: "stream cut by a restart", failure: false, detail: message };
  if (status !== null) return { label: `${status}, body cut`, failure: true, detail: message };
  const timedOut = error instanceof Error && error.name === "TimeoutError";
  return {
    label: timedOut ? "no answer in 90 s" : "network error",
    failure: true,
    detail: message,
  };
}

function causeOf(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? ` (${cause.message})` : "";
}

/** The audit ids a mutation's 200 names: `auditId` (resolve, allow-repeat) or each result's (reconcile). */
function auditIdsOf(text: string): string[] {
  const ids: string[] = [];
  const visit = (value: unknown) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === "object")
      for (const [name, inner] of Object.entries(value)) {
        if (name === "auditId" && typeof inner === "string") ids.push(inner);
        else visit(inner);
      }
  };
  try {
    visit(JSON.parse(text));
  } catch {
    // not JSON: judged (and failed) by judgeAnswer already
  }
  return ids;
}
