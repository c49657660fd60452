import type pg from "pg";

/**
 * The standbys streaming from the bench's server (pg_stat_replication). Each receives every write the
 * bench makes: on the same host, the WAL sender, the standby's replay and its disk writes share the
 * machine with what is measured (the test suite's replica, tests/setup/start-replica.sh, stays up after
 * a run and streams the whole cluster, bench databases included).
 */
export async function streamingReplicas(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string; addr: string | null; state: string | null }>(
    "SELECT application_name AS name, client_addr::text AS addr, state FROM pg_stat_replication ORDER BY pid",
  );
  return rows.map((r) => `${r.name || "a standby"} from ${r.addr ?? "a local socket"} (${r.state ?? "state hidden"})`);
}

/** The report's line: none, or which, and what they cost the run. */
export function streamingReplicasLine(replicas: string[]): string {
  return replicas.length === 0
    ? "streaming replicas: none"
    : `streaming replicas: ${replicas.length} — ${replicas.join(", ")}; each received every write of this run (stop the test replica with tests/setup/start-replica.sh stop for figures without it)`;
}
