import { spawn } from "node:child_process";
import { sourcePath } from "@/lib/build/source-root";
import { stopChild } from "./bench-server";
import { withDeadline } from "./deadline";
import type { ScheduleOptions, ScheduleSamples } from "./writer-schedule";
import type { WriterAnswer, WriterRequest } from "./writer-protocol";

export type WriterChild = {
  pid: number;
  backendPids: number[];
  /** Whether the writer's sessions time their reads and WAL (track_io_timing: superuser). */
  ioTimed: boolean;
  run(options: ScheduleOptions): Promise<ScheduleSamples>;
  stop(): Promise<void>;
};

const RUN_GRACE_MS = 60_000;
const WRITER_PROCESS = sourcePath("tools/bench/writer-process.ts");

/** Starts the writer process (plain node with tsx's loader: the pid is the writer's own, for taskset). */
export async function startWriterChild(databaseUrl: string): Promise<WriterChild> {
  const child = spawn(process.execPath, ["--conditions=react-server", "--import", "tsx", WRITER_PROCESS, databaseUrl], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const next = () =>
    new Promise<WriterAnswer>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`the writer process exited (${code})`));
      child.once("exit", onExit);
      child.once("message", (answer: WriterAnswer) => {
        child.off("exit", onExit);
        resolve(answer);
      });
    });
  const ready = await next();
  if (ready.type !== "ready") {
    await stopChild(child);
    throw new Error(`the writer process did not start: ${ready.type === "failed" ? ready.message : ready.type}`);
  }
  return {
    pid: child.pid!,
    backendPids: ready.backendPids,
    ioTimed: ready.ioTimed,
    async run(options) {
      const answer = next();
      child.send({ type: "run", options } satisfies WriterRequest);
      const result = await withDeadline(
        answer,
        (options.warmupSeconds + options.seconds) * 1000 + RUN_GRACE_MS,
        `the writer's ${options.seconds} s phase`,
      );
      if (result.type !== "done")
        throw new Error(`the writer failed: ${result.type === "failed" ? result.message : result.type}`);
      return result.samples;
    },
    // The writer ends its pool on "stop"; stopChild's SIGTERM (then SIGKILL) is for one that does not.
    stop: () => {
      if (child.connected) child.send({ type: "stop" } satisfies WriterRequest);
      return stopChild(child);
    },
  };
}
