import "server-only";

/**
 * A rolled-up hour or minute slice never changes once listed in metrics_rollup_hour /
 * metrics_rollup_minute (the rows and the listing are written in one transaction, and a roll-up
 * never rewrites them); it is only deleted (a slice pruned, an hour an operator deletes to have it
 * rolled again) and then listed again by a new transaction. So its rows can be kept in memory
 * under (scope, time, the listing row's xmin): a re-rolled hour has a new xmin and is read again,
 * a pruned one is never asked for. Without this a 48 h read fetched ~2,000 rows with three jsonb
 * histograms each on every request, the largest part of its SQL time at 10 M rows (docs/bench.md).
 * Bounded: the least recently used entries go first.
 */
export type Listed = { at: Date; version: string };

const MAX_ENTRIES = 20_000;

export class RolledRowsCache<Row> {
  private readonly entries = new Map<string, Row[]>();

  constructor(private readonly maxEntries = MAX_ENTRIES) {}

  /**
   * The rows of every listed time in `scopeKey`: cached ones from memory, the others from
   * `fetch` (one call for all of them), which returns each row with the time it belongs to and
   * the version it was read at. A time read at another version than listed (rolled again in
   * between) is used for this answer but not kept.
   */
  async rowsOf(
    scopeKey: string,
    listed: Listed[],
    fetch: (missing: Date[]) => Promise<{ at: Date; version: string; row: Row }[]>,
  ): Promise<Row[]> {
    const rows: Row[] = [];
    const missing: Listed[] = [];
    for (const l of listed) {
      const key = this.key(scopeKey, l);
      const cached = this.entries.get(key);
      if (cached === undefined) {
        missing.push(l);
        continue;
      }
      // Map order is insertion order: re-inserting marks it most recently used.
      this.entries.delete(key);
      this.entries.set(key, cached);
      rows.push(...cached);
    }
    if (missing.length === 0) return rows;
    const fetched = await fetch(missing.map((l) => l.at));
    const byTime = new Map<number, { versions: Set<string>; rows: Row[] }>();
    for (const f of fetched) {
      let group = byTime.get(f.at.getTime());
      if (!group) byTime.set(f.at.getTime(), (group = { versions: new Set(), rows: [] }));
      group.versions.add(f.version);
      group.rows.push(f.row);
    }
    for (const l of missing) {
      const group = byTime.get(l.at.getTime());
      rows.push(...(group?.rows ?? []));
      // An hour with no traffic has no rows: kept as empty, under the listed version.
      if (group && (group.versions.size !== 1 || !group.versions.has(l.version))) continue;
      this.entries.set(this.key(scopeKey, l), group?.rows ?? []);
    }
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return rows;
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }

  private key(scopeKey: string, l: Listed): string {
    return `${scopeKey}\u0000${l.at.getTime()}\u0000${l.version}`;
  }
}
