import { performance } from "node:perf_hooks";

export type ScheduleOptions = { rate: number; seconds: number; warmupSeconds: number };

export type ScheduleSamples = {
  /** Completion minus the call's scheduled start, ms: what a writer on this schedule waits, stalls included. */
  fromSchedule: number[];
  /** Completion minus the moment the call was actually sent, ms. */
  service: number[];
  /** Send minus schedule, ms: the writer process's own lateness (timer slack, a descheduled event loop). */
  sendLag: number[];
  /** Each counted call's scheduled start, epoch ms (same order as fromSchedule): to line the slowest up with the console's rounds. */
  dueAt: number[];
  failed: number;
  firstError: string | null;
};

/**
 * Calls `call` at a fixed rate, open loop: call i is due at start + i / rate whether or not the ones
 * before it have finished, and its latency is measured from when it was due. A closed loop (next
 * call after the previous answer) sends fewer calls while the database stalls and so hides the
 * stall from its own figures (coordinated omission); this does not. The first `warmupSeconds` of
 * calls run but are not counted.
 */
export async function runOpenLoop(
  call: (i: number) => Promise<unknown>,
  options: ScheduleOptions,
): Promise<ScheduleSamples> {
  const interval = 1000 / options.rate;
  const warmupCalls = Math.round(options.rate * options.warmupSeconds);
  const total = warmupCalls + Math.round(options.rate * options.seconds);
  const samples: ScheduleSamples = {
    fromSchedule: [],
    service: [],
    sendLag: [],
    dueAt: [],
    failed: 0,
    firstError: null,
  };
  const inFlight = new Set<Promise<void>>();
  const start = performance.now() + 20;
  for (let i = 0; i < total; i += 1) {
    const due = start + i * interval;
    const wait = due - performance.now();
    // Never early: a call sent before it is due would shorten its own measured latency.
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
    const sent = performance.now();
    const counted = i >= warmupCalls;
    const pending = call(i).then(
      () => {
        if (!counted) return;
        const done = performance.now();
        samples.fromSchedule.push(done - due);
        samples.service.push(done - sent);
        samples.sendLag.push(sent - due);
        samples.dueAt.push(performance.timeOrigin + due);
      },
      (error: unknown) => {
        if (!counted) return;
        samples.failed += 1;
        samples.firstError ??= error instanceof Error ? error.message : String(error);
      },
    );
    inFlight.add(pending);
    void pending.finally(() => inFlight.delete(pending));
  }
  await Promise.all(inFlight);
  return samples;
}
