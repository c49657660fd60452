import type { ReactNode } from "react";
import { Link } from "@/components/ui/link";
import type { ParamProblem } from "@/lib/url-state/strict-params";

type Props = {
  problems: ParamProblem[];
  /** Where to start again without the filter, and what that link says. */
  reset: { href: string; label: string };
  testId: string;
  /** The page's filter form holding what the link typed, given each refused field's reason id to be described by. */
  form?: (problemIds: Record<string, string>) => ReactNode;
};

/** The id of the item naming `param`'s problem, which the filter form's field for it is described by. */
function queryProblemId(testId: string, param: string): string {
  return `${testId}-${param}`;
}

/**
 * A filter field's props beside a refusal: the field the refusal names is marked invalid, bordered red-700 (4.5:1 on
 * white, like the console's other error words) and described by its reason, so the reader corrects it in place.
 */
export function refusedFieldProps(
  problemIds: Partial<Record<string, string>>,
  name: string,
  className = "",
): { className: string; "aria-invalid"?: true; "aria-describedby"?: string } {
  const reason = problemIds[name];
  return reason
    ? { "aria-invalid": true, "aria-describedby": reason, className: `${className} border-red-700`.trim() }
    : { className };
}

/**
 * A link whose filter the console cannot read: say which parameter and why; query nothing. With `form`, the page's
 * filter form follows, so the reader corrects the value in place.
 */
export function QueryProblems({ problems, reset, testId, form }: Props) {
  const alert = (
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
  if (!form) return alert;
  const problemIds = Object.fromEntries(problems.map((p) => [p.param, queryProblemId(testId, p.param)]));
  return (
    <>
      {alert}
      <div className="mt-4">{form(problemIds)}</div>
    </>
  );
}
