import type { VerifiedUpstream } from "@/lib/metrics/verified-upstream";

/** "2026-12-04 09:41 UTC": when the counts were taken (the console's times are UTC everywhere). */
function runTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** The sentence, so the card and the table say the same. */
export function upstreamSentence(u: VerifiedUpstream): string {
  const effects = `${u.sideEffects} side effect${u.sideEffects === 1 ? "" : "s"}`;
  const calls = `${u.calls} call${u.calls === 1 ? "" : "s"}`;
  return `upstream counted ${effects} for 1 operation (${calls})`;
}

/**
 * What the tool's upstream counted in its newest stored verify run, named as such: the counts come
 * from that run (its time, its verdict), not from the traffic of the window above. More than one
 * side effect for one operation is the duplicate no table figure can show, so it reads in red.
 */
export function VerifiedUpstreamNote({ upstream }: { upstream: VerifiedUpstream }) {
  const tone =
    upstream.sideEffects > 1
      ? "bg-red-50 text-red-800 ring-red-200"
      : upstream.sideEffects === 1
        ? "bg-slate-50 text-slate-700 ring-slate-200"
        : "bg-amber-50 text-amber-900 ring-amber-200";
  return (
    <span
      className={`inline-block whitespace-normal rounded px-1.5 py-px font-sans text-[11px] ring-1 ring-inset ${tone}`}
      data-testid="verified-upstream"
      data-side-effects={upstream.sideEffects}
      title={`From the stored verify run #${upstream.verificationId} on ${upstream.server} (${upstream.adapter}, verdict ${upstream.verdict}), not from this window's traffic: ${upstream.detail}`}
    >
      <span className="font-medium">{upstreamSentence(upstream)}</span> · verify run {runTime(upstream.finishedAt)},{" "}
      {upstream.verdict}
    </span>
  );
}
