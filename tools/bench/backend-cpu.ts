import "server-only";
import { readFileSync } from "node:fs";
import pg from "pg";

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of a local process, in seconds; null once it has exited (or on another host). */
function processCpuSeconds(pid: number): number | null {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * The CPU a PostgreSQL backend spends for a connection named `applicationName`, sampled from /proc
 * every 100 ms until `stop()` (the last sample before the backend exits). On a shared machine wall
 * time includes waiting for a core; CPU seconds say what the work itself costs. Null when the
 * server is not on this host.
 */
export function watchBackendCpu(url: string, applicationName: string): { stop(): Promise<number | null> } {
  let last: number | null = null;
  let stopped = false;
  const sampling = (async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      let pid: number | null = null;
      while (!stopped) {
        if (pid === null) {
          const { rows } = await client.query<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1 LIMIT 1",
            [applicationName],
          );
          pid = rows[0]?.pid ?? null;
        }
        if (pid !== null) last = processCpuSeconds(pid) ?? last;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await client.end();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await sampling;
      return last;
    },
  };
}
