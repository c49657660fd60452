import Link from "next/link";

/** Keyset paging, newest first: back to the newest entry, or on to older ones. */
export function AuditPager({ newest, older, shown, atNewest }: { newest: string; older: string | null; shown: number; atNewest: boolean }) {
  const item = "rounded-md border px-3 py-1.5 text-sm";
  const enabled = `${item} border-slate-300 bg-white text-slate-800 hover:bg-slate-100`;
  const disabled = `${item} border-slate-200 bg-slate-50 text-slate-400`;
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center gap-2" data-testid="audit-pager">
      {atNewest ? (
        <span className={disabled} aria-disabled="true">
          ⇤ Newest
        </span>
      ) : (
        <Link href={newest} className={enabled}>
          ⇤ Newest
        </Link>
      )}
      {older ? (
        <Link href={older} className={enabled} rel="next">
          Older →
        </Link>
      ) : (
        <span className={disabled} aria-disabled="true">
          Older →
        </span>
      )}
      <span className="ml-2 text-xs text-slate-500">
        {shown.toLocaleString("en")} entr{shown === 1 ? "y" : "ies"} on this page{atNewest ? ", starting at the newest" : ""}
      </span>
    </nav>
  );
}
