/**
 * Demo only: lets a planned race be a race every time. A call marked "hold for a duplicate"
 * keeps its claim (as a slow processor would) until a repeat of it has been turned away as in
 * flight, or the hold times out. A fixed sleep would do the same on an idle machine and lose the
 * race on a busy one, which would make the seeded history differ from run to run.
 */
export function createDuplicateHolds() {
  const rejected = new Set<string>();
  const waiting = new Map<string, () => void>();
  return {
    /** Resolves once a duplicate of `key` was rejected (maybe already), or after `maxMs`. */
    wait(key: string, maxMs: number): Promise<void> {
      if (rejected.delete(key)) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(done, maxMs);
        function done() {
          clearTimeout(timer);
          waiting.delete(key);
          resolve();
        }
        waiting.set(key, done);
      });
    },
    /** A call with `key` was just rejected as in flight. */
    rejected(key: string): void {
      const waiter = waiting.get(key);
      if (waiter) return waiter();
      // In case the holder has not started waiting yet; bounded, since most rejections have no holder.
      rejected.add(key);
      if (rejected.size > 1000) rejected.delete(rejected.values().next().value as string);
    },
  };
}

export type DuplicateHolds = ReturnType<typeof createDuplicateHolds>;
