import type { DemoCaller } from "@/tools/demo/mcp/demo-caller";

/** A handler dying mid-call (demo fault): the guard rethrows it and the claim stays in_progress. */
export class SimulatedCrashError extends Error {
  constructor(tool: string, stage: "before" | "after", upstream: string) {
    super(
      `demo crash: ${tool} handler died ${stage === "before" ? `before calling the ${upstream}` : `after the ${upstream} acted, before recording the outcome`}`,
    );
    this.name = "SimulatedCrashError";
  }
}

/** Throws when the caller asked for a crash at this point of the handler. */
export function crashIfAsked(caller: DemoCaller, stage: "before" | "after", tool: string, upstream: string): void {
  if (caller.fault === `crash-${stage}`) throw new SimulatedCrashError(tool, stage, upstream);
}
