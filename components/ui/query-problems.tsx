import { Link } from "@/components/ui/link";
import type { ParamProblem } from "@/lib/url-state/strict-params";

type Props = {
  problems: ParamProblem[];
  /** Where to start again without the filter, and what that link says. */
  reset: { href: string; label: string };
  testId: string;
};

/** The id of the item naming `param`'s problem, which the filter form's field for it is described by. */
export function queryProblemId(testId: string, param: string): string {
  return `${testId}-${param}`;
}

/** Each refused parameter's item id, for the filter form shown beside the refusal. */
export function queryProblemIds(testId: string, problems: readonly ParamProblem[]): Record<string, string> {
  return Object.fromEntries(problems.map((p) => [p.param, queryProblemId(testId, p.param)]));
}

/** A link whose filter the console cannot read: say which parameter and why; query nothing. */
export function QueryProblems({ problems, reset, testId }: Props) {
  return (
    <div role="alert" data-testid={testId} className="max-w-2xl rounded-lg border border-amber-300 bg-amber-50 p-5">
      <h2 className="text-sm font-semibold text-amber-900">This link&apos;s filter could not be read</h2>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-amber-900">
        {problems.map((p, i) => (
          <li
            key={p.param + p.message}
            id={problems.findIndex((q) => q.param === p.param) === i ? queryProblemId(testId, p.param) : undefined}
          >
            {p.message}
          </li>
        ))}
      </ul>
      <Link
        href={reset.href}
        className="mt-4 inline-block rounded-md bg-slate-900 px-3 py-1.5 text-sm text-white hover:bg-slate-700"
      >
        {reset.label}
      </Link>
    </div>
  );
}
