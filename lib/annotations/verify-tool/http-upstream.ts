import type { HttpProcessor } from "@/lib/resolve/http-adapter";
import { checkHttpProcessor } from "@/lib/resolve/http-adapter";
import { countsDuring, readSideEffectCounts, type SideEffectCounts } from "./upstream-counts";
import { plural, upstreamFinding, type UpstreamFinding } from "./upstream-finding";

/**
 * The http adapter's side (`GET {baseUrl}/references/{key}`, lib/resolve/http-adapter.ts), with the
 * processor's side-effect counters read before and after the run where it exposes them: the key
 * taken exactly once, and nothing else performed meanwhile (a second charge under another reference
 * or none is the duplicate the table cannot see).
 */
export function httpUpstream(processor: HttpProcessor, fetchImpl: typeof fetch, timeoutMs: number) {
  let before: SideEffectCounts | null = null;
  return {
    adapter: "http",
    async baseline(): Promise<void> {
      before = await readSideEffectCounts(processor.baseUrl, fetchImpl, timeoutMs);
    },
    async finish(key: string | null): Promise<UpstreamFinding> {
      const after = before ? await readSideEffectCounts(processor.baseUrl, fetchImpl, timeoutMs) : null;
      const during = before && after ? countsDuring(before, after, key) : null;
      const evidence = { adapter: "http", reference: key, sideEffects: during?.total ?? null };
      if (during && during.total > 1) {
        const parts = [
          key ? `${during.forReference} for reference ${key.slice(0, 12)}…` : "",
          during.withoutReference ? `${during.withoutReference} without a reference` : "",
        ].filter(Boolean);
        const other = during.total - during.forReference - during.withoutReference;
        if (key && other > 0) parts.push(`${other} under other references`);
        return upstreamFinding(
          "failed",
          `the processor performed ${plural(during.total, "side effects")} during the run (${parts.join(", ")}), not 1`,
          evidence,
          "two_keys",
        );
      }
      if (key === null) {
        return during
          ? upstreamFinding(
              during.total === 1 ? "passed" : "inconclusive",
              `the processor performed ${plural(during.total, "side effects")} during the run; with no row there was no reference to ask about`,
              evidence,
            )
          : upstreamFinding(
              "inconclusive",
              "with no row there was no reference to ask the processor about, and it reports no side-effect counts",
              evidence,
            );
      }
      const check = await checkHttpProcessor(processor, key, timeoutMs, fetchImpl);
      if (check.outcome === "not_taken")
        return upstreamFinding(
          "failed",
          `${check.reason} (reference ${key.slice(0, 12)}…), yet the row is completed`,
          evidence,
        );
      if (check.outcome === "unknown") return upstreamFinding("inconclusive", check.reason, evidence);
      if (during === null)
        return upstreamFinding(
          "passed",
          `the processor took reference ${key.slice(0, 12)}… (it reports no side-effect counts, so only the reference was checked)`,
          evidence,
        );
      if (during.total === 0)
        return upstreamFinding(
          "inconclusive",
          `the processor knows reference ${key.slice(0, 12)}… but counted no side effect during the run`,
          evidence,
        );
      return upstreamFinding("passed", `the processor took reference ${key.slice(0, 12)}… exactly once`, evidence);
    },
  };
}
