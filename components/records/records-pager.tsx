import Link from "next/link";
import { PageSizeSelect } from "@/components/records/page-size-select";

type PagerLinks = { first: string; next: string | null; prev: string | null };

/** Keyset paging: newest, newer, older. No page numbers — a position, not an offset. */
export function RecordsPager({ links, shown }: { links: PagerLinks; shown: number }) {
  const item = "rounded-md border px-3 py-1.5 text-sm";
  const enabled = `${item} border-slate-300 bg-white text-slate-800 hover:bg-slate-100`;
  const disabled = `${item} border-slate-200 bg-slate-50 text-slate-400`;
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center gap-2" data-testid="records-pager">
      {links.prev ? (
        <Link href={`/records${links.first}`} className={enabled}>
          ⇤ Newest
        </Link>
      ) : null}
      {links.prev ? (
        <Link href={`/records${links.prev}`} className={enabled} rel="prev">
          ← Newer
        </Link>
      ) : (
        <span className={disabled} aria-disabled="true">
          ← Newer
        </span>
      )}
      {links.next ? (
        <Link href={`/records${links.next}`} className={enabled} rel="next">
          Older →
        </Link>
      ) : (
        <span className={disabled} aria-disabled="true">
          Older →
        </span>
      )}
      <span className="ml-2 text-xs text-slate-500">
        {shown.toLocaleString("en")} on this page{links.prev ? "" : ", starting at the newest"}
      </span>
      <div className="ml-auto">
        <PageSizeSelect />
      </div>
    </nav>
  );
}
