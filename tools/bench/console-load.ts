import { setMaxListeners } from "node:events";
import { performance } from "node:perf_hooks";
import { summarise, summariseTail, type LatencySummary, type TailLatencySummary } from "./percentiles";
import { readBody } from "./read-body";

/** One kind of console request in the load mix, with the paths it is drawn from. */
export type LoadKind = { name: string; paths: string[] };

export type LoadKindReport = {
  name: string;
  requests: number;
  /** Requests still running when the load stopped (aborted, not in the latency): a long export's are. */
  unfinished: number;
  errors: number;
  bytes: number;
  latency: LatencySummary;
  firstError: string | null;
};

export type ConsoleLoadReport = {
  users: number;
  seconds: number;
  requests: number;
  kinds: LoadKindReport[];
  /** Every finished request of every kind, pooled: what the users saw as a whole. */
  all: TailLatencySummary;
};

export type ConsoleLoad = {
  stop(): Promise<ConsoleLoadReport>;
  /** Every finished request's latency (ms), all kinds: for pooling phases before summarising. */
  samples(): number[];
};

/**
 * `users` concurrent API users, each sending one request after another (closed loop: this is the
 * load, not the thing measured), cycling through the kinds from starting kinds spread evenly over them,
 * every body read to its end as a client would (an export streams through without being kept).
 * Requests still running at stop() are aborted and not counted.
 */
/**
 * The kind user `u` of `users` asks for first: spread evenly over the kinds, so that fewer users than kinds
 * still reach every kind within a short phase, and more users than kinds start on every kind.
 */
export function firstKindOf(u: number, users: number, kinds: number): number {
  return Math.floor((u * kinds) / users);
}

export function startConsoleLoad(
  server: { baseUrl: string; authorization: string },
  kinds: LoadKind[],
  users: number,
): ConsoleLoad {
  const abort = new AbortController();
  // Each user's request and body read listen on it while in flight: two a user, no more.
  setMaxListeners(users * 2 + 1, abort.signal);
  const started = performance.now();
  const stats = kinds.map(() => ({
    samples: [] as number[],
    unfinished: 0,
    errors: 0,
    bytes: 0,
    firstError: null as string | null,
  }));
  const user = async (u: number) => {
    for (let i = firstKindOf(u, users, kinds.length); !abort.signal.aborted; i += 1) {
      const k = i % kinds.length;
      const kind = kinds[k]!;
      const stat = stats[k]!;
      const path = kind.paths[Math.floor(i / kinds.length) % kind.paths.length]!;
      const t = performance.now();
      // A signal per request, aborted by the load's: node's fetch leaves its listener on the signal it is
      // given until the response is collected, and 16 users' requests on one signal passed 1,500 of them.
      const request = new AbortController();
      const abortRequest = () => request.abort();
      abort.signal.addEventListener("abort", abortRequest, { once: true });
      try {
        const response = await fetch(`${server.baseUrl}${path}`, {
          headers: { authorization: server.authorization },
          signal: request.signal,
        });
        const bytes = await readBody(response, undefined, abort.signal);
        if (abort.signal.aborted) {
          stat.unfinished += 1;
          return;
        }
        if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
        stat.samples.push(performance.now() - t);
        stat.bytes += bytes;
      } catch (error) {
        if (abort.signal.aborted) {
          stat.unfinished += 1;
          return;
        }
        stat.errors += 1;
        stat.firstError ??= error instanceof Error ? error.message : String(error);
      } finally {
        abort.signal.removeEventListener("abort", abortRequest);
      }
    }
  };
  const running = Promise.all(Array.from({ length: users }, (_, u) => user(u)));
  return {
    async stop() {
      const seconds = (performance.now() - started) / 1000;
      abort.abort();
      await running;
      const reports = kinds.map((kind, k) => ({
        name: kind.name,
        requests: stats[k]!.samples.length,
        unfinished: stats[k]!.unfinished,
        errors: stats[k]!.errors,
        bytes: stats[k]!.bytes,
        latency: summarise(stats[k]!.samples),
        firstError: stats[k]!.firstError,
      }));
      return {
        users,
        seconds: Math.round(seconds * 10) / 10,
        requests: reports.reduce((sum, r) => sum + r.requests, 0),
        kinds: reports,
        all: summariseTail(stats.flatMap((stat) => stat.samples)),
      };
    },
    samples: () => stats.flatMap((stat) => stat.samples),
  };
}
