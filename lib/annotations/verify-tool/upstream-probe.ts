import type { IdemConfig } from "@/lib/config/schema";
import { httpUpstream } from "./http-upstream";
import { statusToolUpstream } from "./status-tool-upstream";
import { upstreamFinding, type UpstreamFinding } from "./upstream-finding";

export type UpstreamProbe = {
  /** Read before the first call: counters to subtract from the run's. */
  baseline(): Promise<void>;
  /** Asked after the last call, about the row's key when the table gave one. */
  finish(key: string | null): Promise<UpstreamFinding>;
};

/**
 * The upstream side through the tool's configured adapter (idem.config.json `tools.<tool>.processor`,
 * as lib/resolve/ask-processor.ts picks it). A tool with none is skipped, and says so: the answers
 * and the table still judge it.
 */
export function upstreamProbeFor(
  config: IdemConfig,
  tool: string,
  callArguments: Record<string, unknown>,
  fetchImpl: typeof fetch,
  timeoutMs: number,
): UpstreamProbe {
  const processor = config.tools[tool]?.processor;
  if (!processor)
    return {
      baseline: async () => {},
      finish: async (key) =>
        upstreamFinding(
          "skipped",
          `no processor is configured for ${tool} in idem.config.json, so the upstream was not asked`,
          { adapter: "none", reference: key, sideEffects: null },
        ),
    };
  const timeout = Math.min(processor.timeout ?? timeoutMs, timeoutMs);
  if (processor.type === "http") return httpUpstream(processor, fetchImpl, timeout);
  return statusToolUpstream(processor, config, callArguments, fetchImpl, timeout);
}
