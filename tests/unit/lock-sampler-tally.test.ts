import { describe, expect, it } from "vitest";
import { CONSOLE_APPLICATION_NAME } from "@/lib/db/application-name";
import { emptyTallies, tallyBackends, type BackendState } from "@/tools/bench/lock-sampler";

const WRITER = "idem-bench-writer";

function backend(
  pid: number,
  applicationName: string,
  state: string,
  wait: string | null,
  query: string,
): BackendState {
  return { pid, leaderPid: null, applicationName, backendType: "client backend", state, wait, query };
}

describe("bench-writers' sampler tallies", () => {
  it("counts console backends reading into shared buffers by statement, and no one else's", () => {
    const tallies = emptyTallies();
    const sample = [
      backend(1, CONSOLE_APPLICATION_NAME, "active", "IO:DataFileRead", "SELECT facets"),
      backend(2, `${CONSOLE_APPLICATION_NAME}:export`, "active", "IPC:BufferIO", "SELECT export batch"),
      backend(3, CONSOLE_APPLICATION_NAME, "active", "LWLock:BufferMapping", "SELECT facets"),
      backend(4, CONSOLE_APPLICATION_NAME, "active", null, "SELECT on cpu"),
      backend(5, CONSOLE_APPLICATION_NAME, "idle", "Client:ClientRead", "SELECT finished"),
      backend(6, WRITER, "active", "IO:DataFileRead", "INSERT claim"),
      backend(7, "another-client", "active", "IO:DataFileRead", "SELECT someone else"),
    ];
    expect(tallyBackends(sample, WRITER, tallies)).toBe(false);
    expect(tallyBackends(sample.slice(0, 1), WRITER, tallies)).toBe(false);
    expect(tallies.consoleBufferReads).toEqual({ "SELECT facets": 3, "SELECT export batch": 1 });
    expect(tallies.consoleStates).toEqual({
      "active, IO:DataFileRead": 2,
      "active, IPC:BufferIO": 1,
      "active, LWLock:BufferMapping": 1,
      "active, on CPU": 1,
      idle: 1,
    });
    expect(tallies.writerStates).toEqual({ "active, IO:DataFileRead": 1 });
  });

  it("says when a writer waits on WALWrite, and counts a console leader's parallel workers", () => {
    const tallies = emptyTallies();
    const leader = backend(1, CONSOLE_APPLICATION_NAME, "active", "IPC:ExecuteGather", "SELECT parallel");
    const worker = {
      ...backend(2, "", "active", null, "SELECT parallel"),
      leaderPid: 1,
      backendType: "parallel worker",
    };
    const waiting = backend(3, WRITER, "active", "LWLock:WALWrite", "COMMIT");
    expect(tallyBackends([leader, worker, waiting], WRITER, tallies)).toBe(true);
    expect(tallyBackends([{ ...waiting, state: "idle" }], WRITER, tallies)).toBe(false);
    expect(tallies.consoleParallelWorkers).toEqual({ "SELECT parallel": 1 });
  });
});
