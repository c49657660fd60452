import Link from "next/link";
import type { ReactNode } from "react";

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
};

const item = "rounded-md border px-3 py-1.5 text-sm";
const enabled = `${item} border-slate-300 bg-white text-slate-800 hover:bg-slate-100`;
const disabled = `${item} border-slate-200 bg-slate-50 text-slate-500`;

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

/** Keyset paging, newest first: no page numbers — a position, not an offset. */
export function KeysetPager({ newest, newer, older, summary, testId, children }: Props) {
  const pagesNewer = newer !== undefined;
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center gap-2" data-testid={testId}>
      {pagesNewer && newest === null ? null : <PagerLink href={newest}>⇤ Newest</PagerLink>}
      {pagesNewer ? (
        <PagerLink href={newer} rel="prev">
          ← Newer
        </PagerLink>
      ) : null}
      <PagerLink href={older} rel="next">
        Older →
      </PagerLink>
      <span className="ml-2 text-xs text-slate-500">{summary}</span>
      {children ? <div className="ml-auto">{children}</div> : null}
    </nav>
  );
}
