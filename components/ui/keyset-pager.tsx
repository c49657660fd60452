import { Link } from "@/components/ui/link";
import type { ReactNode } from "react";
import { buttonClass } from "@/components/ui/button";

type Props = {
  /** The newest page, or null on it. */
  newest: string | null;
  /**
   * The next newer page, null on the newest. Left out (undefined) where a list only pages on to
   * older entries: then "⇤ Newest" stays in place, disabled on the newest page; with "← Newer"
   * beside it, it is left out there instead (the disabled "← Newer" says the same).
   */
  newer?: string | null;
  /** The next older page, null on the oldest. */
  older: string | null;
  /** What this page holds, e.g. "50 on this page". */
  summary: string;
  testId?: string;
  /** Controls at the far end (a page-size picker). */
  children?: ReactNode;
  /**
   * The list's order. Oldest first (the stuck list's default) names the same three steps the other
   * way round: "⇤ Oldest", "← Older", "Newer →" (`newest` is then the first page, `older` the next).
   */
  order?: "newest" | "oldest";
};

const WORDS = {
  newest: { first: "⇤ Newest", back: "← Newer", on: "Older →" },
  oldest: { first: "⇤ Oldest", back: "← Older", on: "Newer →" },
} as const;

const enabled = buttonClass({ variant: "secondary", className: "font-normal" });
// Not opacity: the words of a disabled step stay readable (slate-500 on slate-50).
const disabled = buttonClass({
  variant: "secondary",
  className: "font-normal border-slate-200 bg-slate-50 text-slate-500 hover:bg-slate-50",
});

function PagerLink({ href, rel, children }: { href: string | null; rel?: "next" | "prev"; children: string }) {
  return href ? (
    <Link href={href} className={enabled} rel={rel}>
      {children}
    </Link>
  ) : (
    <span className={disabled} aria-disabled="true">
      {children}
    </span>
  );
}

/** Keyset paging, newest first (or oldest first): no page numbers — a position, not an offset. */
export function KeysetPager({ newest, newer, older, summary, testId, children, order = "newest" }: Props) {
  const pagesNewer = newer !== undefined;
  const words = WORDS[order];
  return (
    <nav aria-label="Pages" className="mt-4 flex flex-wrap items-center gap-2" data-testid={testId}>
      {pagesNewer && newest === null ? null : <PagerLink href={newest}>{words.first}</PagerLink>}
      {pagesNewer ? (
        <PagerLink href={newer} rel="prev">
          {words.back}
        </PagerLink>
      ) : null}
      <PagerLink href={older} rel="next">
        {words.on}
      </PagerLink>
      <span className="text-xs text-slate-500 md:ml-2">{summary}</span>
      {children ? <div className="ml-auto">{children}</div> : null}
    </nav>
  );
}
