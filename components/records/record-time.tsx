import { formatAge } from "@/lib/format/relative-time";

/** Relative ("3 min ago"), with the exact UTC time on hover; `now` comes from the server so both renders agree. */
export function RecordTime({ at, now, suffix = " ago" }: { at: string; now: string; suffix?: string }) {
  return (
    <time
      dateTime={at}
      title={`${at.replace("T", " ").replace("Z", " UTC")}`}
      className="whitespace-nowrap tabular-nums"
    >
      {formatAge(new Date(at), new Date(now))}
      {suffix}
    </time>
  );
}
