import { describe, expect, it } from "vitest";
import { difference, parseCpuTimes } from "@/tools/bench/phase-counters";

const STAT_AT = (cpu0: string, cpu1: string) =>
  `cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 ${cpu0}\ncpu1 ${cpu1}\nintr 1 2 3\nctxt 99\n`;

describe("the bench's phase counters", () => {
  it("reads each CPU's busy, iowait and stolen ticks from /proc/stat, not the all-CPU line", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const cpus = parseCpuTimes(STAT_AT("100 5 50 800 20 1 4 10 0 0", "10 0 10 970 0 0 0 0 0 0"));
    expect(cpus).toEqual([
      { cpu: 0, busy: 160, iowait: 20, steal: 10, total: 990 },
      { cpu: 1, busy: 20, iowait: 0, steal: 0, total: 990 },
    ]);
  });

  it("gives each CPU's shares and the counters' differences over the phase", () => {
    const start = {
      at: 1_000,
      sql: { wal_bytes: 1_000, wal_sync_time: 2.5, blks_read: 10, blks_hit: 90, buffers_alloc: 7 },
      vmstat: { pgpgin: 100, pgmajfault: 3 },
      cpus: parseCpuTimes(STAT_AT("100 0 0 900 0 0 0 0", "0 0 0 1000 0 0 0 0")),
    };
    const end = {
      at: 3_000,
      sql: { wal_bytes: 51_000, wal_sync_time: 12.5, blks_read: 30, blks_hit: 190, buffers_alloc: 27 },
      vmstat: { pgpgin: 164, pgmajfault: 3 },
      // cpu0: 150 of 200 ticks busy, 50 idle; cpu1: 20 busy, 20 iowait, 160 idle
      cpus: parseCpuTimes(STAT_AT("250 0 0 950 0 0 0 0", "20 0 0 1160 20 0 0 0")),
    };
    const d = difference(start, end);
    expect(d.seconds).toBe(2);
    expect(d.wal.bytes).toBe(50_000);
    expect(d.wal.syncMs).toBe(10);
    expect(d.database).toMatchObject({ blocksRead: 20, blocksHit: 100 });
    expect(d.bgwriter.buffersAlloc).toBe(20);
    expect(d.host).toEqual({ pagesIn: 64, pagesOut: 0, majorFaults: 0 });
    expect(d.cpus).toEqual([
      { cpu: 0, busy: 0.75, iowait: 0, steal: 0 },
      { cpu: 1, busy: 0.1, iowait: 0.1, steal: 0 },
    ]);
  });
});
