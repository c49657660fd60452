import pg from "pg";
import { summariseTail } from "@/tools/bench/percentiles";
import type { LoadWindow } from "./soak-load";
import type { RouteClass } from "./soak-requests";
import { residentBytesOfTree } from "./process-memory";

/** One line of the table over time. */
export type SoakSample = {
  /** Seconds since the load began, at the window's end. */
  atSeconds: number;
  requests: number;
  /** Route class → status label → count, in this window. */
  byClass: Record<string, Record<string, number>>;
  failures: number;
  p50Ms: number;
  p99Ms: number;
  /** The console's RSS (the `next start` process and its children), MiB. Null if it is gone. */
  rssMiB: number | null;
  /** Backends by application_name (the soak's own left out); null while the database does not answer. */
  connections: Record<string, number> | null;
  /** What the soak was doing to the world in this window ("restart fast", "processor hanging"). */
  events: string[];
};

/** The soak's own connections are named so they can be left out of the counts. */
export const SOAK_APPLICATION_NAME = "idem-soak";

export async function takeSample(
  atSeconds: number,
  window: LoadWindow,
  consolePid: number,
  databaseUrl: string,
  events: string[],
): Promise<SoakSample> {
  const { p50Ms, p99Ms } = summariseTail(window.latenciesMs);
  const rss = residentBytesOfTree(consolePid);
  return {
    atSeconds: Math.round(atSeconds),
    requests: window.requests,
    byClass: Object.fromEntries(
      [...window.byClass].map(([routeClass, labels]: [RouteClass, Map<string, number>]) => [
        routeClass,
        Object.fromEntries(labels),
      ]),
    ),
    failures: window.failures,
    p50Ms: Math.round(p50Ms),
    p99Ms: Math.round(p99Ms),
    rssMiB: rss === null ? null : Math.round(rss / 1024 / 1024),
    connections: await connectionsByApplication(databaseUrl),
    events,
  };
}

async function connectionsByApplication(url: string): Promise<Record<string, number> | null> {
  const client = new pg.Client({
    connectionString: url,
    application_name: SOAK_APPLICATION_NAME,
    connectionTimeoutMillis: 2_000,
    query_timeout: 2_000,
  });
  client.on("error", () => undefined); // a restart ends it: the next sample opens another
  try {
    await client.connect();
    const { rows } = await client.query<{ name: string; n: number }>(
      `SELECT coalesce(nullif(application_name, ''), '(unnamed)') AS name, count(*)::int AS n
       FROM pg_stat_activity WHERE backend_type = 'client backend' AND application_name <> $1
       GROUP BY 1 ORDER BY 1`,
      [SOAK_APPLICATION_NAME],
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}
