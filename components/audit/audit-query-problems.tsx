import Link from "next/link";
import type { ParamProblem } from "@/lib/records/list-filters";

/** A link whose filter the console cannot read: say which parameter and why; query nothing. */
export function AuditQueryProblems({ problems }: { problems: ParamProblem[] }) {
  return (
    <div role="alert" data-testid="audit-query-problems" className="max-w-2xl rounded-lg border border-amber-300 bg-amber-50 p-5">
      <h2 className="text-sm font-semibold text-amber-900">This link&apos;s filter could not be read</h2>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-amber-900">
        {problems.map((p) => (
          <li key={p.param + p.message}>{p.message}</li>
        ))}
      </ul>
      <Link href="/audit" className="mt-4 inline-block rounded-md bg-slate-900 px-3 py-1.5 text-sm text-white hover:bg-slate-700">
        Show the newest entries
      </Link>
    </div>
  );
}
