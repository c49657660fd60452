import { formatAge } from "@/lib/format/relative-time";

/** "2026-03-01 12:00:03 UTC": what hovering any relative time shows. */
export function utcText(iso: string): string {
  return `${iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "")} UTC`;
}

/** Relative time ("14 min ago"), the absolute UTC time on hover. */
export function TimeStamp({ iso, now }: { iso: string; now: Date }) {
  const at = new Date(iso);
  const future = at.getTime() > now.getTime();
  return (
    <time
      dateTime={iso}
      title={utcText(iso)}
      className="cursor-help underline decoration-dotted decoration-slate-300 underline-offset-2"
    >
      {future ? `in ${formatAge(now, at)}` : `${formatAge(at, now)} ago`}
    </time>
  );
}
