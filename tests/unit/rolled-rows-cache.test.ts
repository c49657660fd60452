import { describe, expect, it } from "vitest";
import { RolledRowsCache } from "@/lib/metrics/rolled-rows-cache";

const at = (hour: number) => new Date(Date.UTC(2030, 0, 1, hour));

/** A fetch that answers from `table` (time → version and rows) and records what it was asked for. */
function source(table: Map<number, { version: string; rows: string[] }>) {
  const asked: number[][] = [];
  const fetch = async (missing: Date[]) => {
    asked.push(missing.map((d) => d.getUTCHours()));
    return missing.flatMap((d) => {
      const entry = table.get(d.getTime());
      return (entry?.rows ?? []).map((row) => ({ at: d, version: entry!.version, row }));
    });
  };
  return { asked, fetch };
}

describe("RolledRowsCache", () => {
  it("fetches only the times it does not hold, and keeps empty times too", async () => {
    const table = new Map([
      [at(1).getTime(), { version: "10", rows: ["a1", "b1"] }],
      [at(2).getTime(), { version: "11", rows: [] }],
    ]);
    const { asked, fetch } = source(table);
    const cache = new RolledRowsCache<string>();
    const listed = [
      { at: at(1), version: "10" },
      { at: at(2), version: "11" },
    ];
    expect(await cache.rowsOf("s", listed, fetch)).toEqual(["a1", "b1"]);
    expect(await cache.rowsOf("s", listed, fetch)).toEqual(["a1", "b1"]);
    expect(asked).toEqual([[1, 2]]);
    // Another scope is another entry.
    await cache.rowsOf("other", listed, fetch);
    expect(asked).toEqual([
      [1, 2],
      [1, 2],
    ]);
  });

  it("reads a time again when its listing has a new version (rolled again)", async () => {
    const table = new Map([[at(1).getTime(), { version: "10", rows: ["old"] }]]);
    const { asked, fetch } = source(table);
    const cache = new RolledRowsCache<string>();
    expect(await cache.rowsOf("s", [{ at: at(1), version: "10" }], fetch)).toEqual(["old"]);
    table.set(at(1).getTime(), { version: "12", rows: ["new"] });
    expect(await cache.rowsOf("s", [{ at: at(1), version: "12" }], fetch)).toEqual(["new"]);
    expect(asked).toEqual([[1], [1]]);
  });

  it("does not keep rows read at another version than listed (re-rolled in between)", async () => {
    const table = new Map([[at(1).getTime(), { version: "13", rows: ["newer"] }]]);
    const { asked, fetch } = source(table);
    const cache = new RolledRowsCache<string>();
    expect(await cache.rowsOf("s", [{ at: at(1), version: "12" }], fetch)).toEqual(["newer"]);
    await cache.rowsOf("s", [{ at: at(1), version: "12" }], fetch);
    expect(asked).toEqual([[1], [1]]);
  });

  it("drops the least recently used entries past its bound", async () => {
    const table = new Map([1, 2, 3].map((h) => [at(h).getTime(), { version: "1", rows: [`r${h}`] }]));
    const { asked, fetch } = source(table);
    const cache = new RolledRowsCache<string>(2);
    const one = (h: number) => cache.rowsOf("s", [{ at: at(h), version: "1" }], fetch);
    await one(1);
    await one(2);
    await one(1); // 1 is now the most recently used
    await one(3); // evicts 2
    expect(cache.size).toBe(2);
    await one(1);
    await one(2);
    expect(asked).toEqual([[1], [2], [3], [2]]);
  });
});
