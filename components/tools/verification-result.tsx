import { Link } from "@/components/ui/link";
import { auditHref } from "@/lib/audit/audit-search-params";
import type { ToolVerificationResult, VerificationCheck } from "@/lib/annotations/tool-verification-types";
import { VerificationBadge } from "./verification-badge";

const CHECK_TONES: Record<VerificationCheck["result"], string> = {
  passed: "text-emerald-800",
  failed: "text-red-800",
  inconclusive: "text-amber-800",
  skipped: "text-slate-600",
};

const STEP_NAMES: Record<VerificationCheck["step"], string> = {
  answers: "The answers",
  table: "The table",
  upstream: "The upstream",
};

/**
 * A run just made: its verdict, the step that failed, its sentence, each side's finding and each call's
 * answer, and a link to its audit entry (by id when the answer named it).
 */
export function VerificationResult({ run, auditId = null }: { run: ToolVerificationResult; auditId?: string | null }) {
  return (
    <div className="space-y-3 text-sm" data-testid="verification-result" data-verdict={run.verdict}>
      <div className="flex flex-wrap items-center gap-2">
        <VerificationBadge verdict={run.verdict} step={run.step} solid />
        <p className="font-medium text-slate-900" data-testid="verification-summary">
          {run.summary}
        </p>
      </div>
      {run.evidence.hint ? <p className="text-xs text-amber-900">{run.evidence.hint}</p> : null}

      <section aria-labelledby={`checks-${run.id}`}>
        <h3 id={`checks-${run.id}`} className="text-xs font-semibold text-slate-700">
          What each side showed
        </h3>
        <ul className="mt-1 space-y-1" data-testid="verification-checks">
          {run.evidence.checks.map((check) => (
            <li key={check.step} className="text-xs" data-step={check.step} data-result={check.result}>
              <span className="font-medium text-slate-900">{STEP_NAMES[check.step]}: </span>
              <span className={`font-semibold ${CHECK_TONES[check.result]}`}>{check.result}</span>
              <span className="text-slate-700"> — {check.detail}</span>
            </li>
          ))}
        </ul>
      </section>

      <section aria-labelledby={`calls-${run.id}`}>
        <h3 id={`calls-${run.id}`} className="text-xs font-semibold text-slate-700">
          The calls ({run.concurrency} at once
          {run.evidence.calls.some((c) => c.phase === "sequential")
            ? ", then one after the first completed"
            : "; no repeat after them: they already settled it"}
          )
        </h3>
        <ol className="mt-1 space-y-1" data-testid="verification-calls">
          {run.evidence.calls.map((call, i) => (
            <li
              key={i}
              className="rounded border border-slate-200 bg-white px-2 py-1 text-xs"
              data-outcome={call.outcome}
            >
              <span className="font-medium">
                {i + 1}. {call.phase === "concurrent" ? "at once" : "after"}: {call.outcome.replace("_", " ")}
              </span>
              <span className="text-slate-600">
                {call.ref ? ` · ref ${call.ref}` : ""} · {Math.round(call.ms)} ms · keys{" "}
                {call.keyOrder.join(", ") || "none"}
              </span>
              {call.text ? (
                <details className="mt-0.5">
                  <summary className="cursor-pointer text-slate-600">the answer</summary>
                  <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-1 font-mono text-[11px]">
                    {call.text}
                  </pre>
                </details>
              ) : null}
            </li>
          ))}
        </ol>
      </section>

      {run.evidence.upstream ? (
        <p className="text-xs text-slate-700" data-testid="verification-upstream">
          <span className="font-medium">Upstream ({run.evidence.upstream.adapter}): </span>
          {run.evidence.upstream.detail}
          {run.evidence.upstream.sideEffects !== null ? ` — ${run.evidence.upstream.sideEffects} side effect(s)` : ""}
        </p>
      ) : null}

      <p className="text-xs">
        {/* Without the entry's id (an older answer), the log since this run started holds its tool.verify entry. */}
        <Link
          href={auditId ? auditHref({ id: auditId }) : auditHref({ action: "tool.verify", from: run.startedAt })}
          className="text-sky-800 underline"
          data-testid="verification-audit-link"
        >
          Its audit entry (tool.verify)
        </Link>
      </p>
    </div>
  );
}
