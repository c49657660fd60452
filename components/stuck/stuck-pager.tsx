import Link from "next/link";

type PagerLinks = { first: string; next: string | null; prev: string | null };

/** Keyset paging of the stuck list: newest, newer, older (a position, not an offset). */
export function StuckPager({ links, shown }: { links: PagerLinks; shown: number }) {
  const item = "rounded-md border px-3 py-1.5 text-sm";
  const enabled = `${item} border-slate-300 bg-white text-slate-800 hover:bg-slate-100`;
  const disabled = `${item} border-slate-200 bg-slate-50 text-slate-400`;
  if (!links.prev && !links.next) return null;
  return (
    <nav aria-label="Pages" className="mt-4 flex items-center gap-2">
      {links.prev ? <Link href={`/stuck${links.first}`} className={enabled}>⇤ Newest</Link> : null}
      {links.prev ? <Link href={`/stuck${links.prev}`} className={enabled} rel="prev">← Newer</Link> : <span className={disabled}>← Newer</span>}
      {links.next ? <Link href={`/stuck${links.next}`} className={enabled} rel="next">Older →</Link> : <span className={disabled}>Older →</span>}
      <span className="ml-2 text-xs text-slate-500">{shown.toLocaleString("en")} on this page</span>
    </nav>
  );
}
