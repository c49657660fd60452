import type { ScheduleOptions, ScheduleSamples } from "./writer-schedule";

/** What the bench and its writer process (tools/bench/writer-process.ts, an entry point: importing it would run it) share. */
export const WRITER_APPLICATION_NAME = "idem-bench-writer";
/** Connections the writer keeps open: enough that a slow call does not queue the next ones behind it. */
export const WRITER_CONNECTIONS = 8;

export type WriterRequest = { type: "run"; options: ScheduleOptions } | { type: "stop" };
export type WriterAnswer =
  | { type: "ready"; backendPids: number[]; ioTimed: boolean }
  | { type: "done"; samples: ScheduleSamples }
  | { type: "failed"; message: string };
