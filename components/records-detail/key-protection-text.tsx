import type { KeyProtection } from "@/lib/records/key-protection";
import { formatDuration } from "@/lib/config/duration";
import { TimeStamp, utcText } from "@/components/ui/time-stamp";

/** "until 14:45:00 UTC (in 6 min)": when a retry of this call stops being a repeat and becomes a new call. */
export function KeyProtectionText({ protection, now }: { protection: KeyProtection; now: Date }) {
  if (protection.kind === "business_key") {
    // Past its retention, trim may delete it at its next run: "since", not "may delete it 12 min ago".
    const trimmable = new Date(protection.trimmedAfter).getTime() <= now.getTime();
    return (
      <span data-testid="record-protection">
        business key: until the row is trimmed or released (
        {trimmable ? "trim may delete it now: past its retention since " : "trim may delete it "}
        <TimeStamp iso={protection.trimmedAfter} now={now} />)
      </span>
    );
  }
  const window = `${formatDuration(protection.windowMs)} bucket${protection.windowSource === "default" ? ", the default" : ""}`;
  return (
    <span data-testid="record-protection">
      {protection.ended ? (
        <span className="font-medium text-amber-800">
          ended {utcText(protection.until)} (<TimeStamp iso={protection.until} now={now} />
          ): an identical call now runs again
        </span>
      ) : (
        <>
          until {utcText(protection.until)} (<TimeStamp iso={protection.until} now={now} />)
        </>
      )}
      <span className="block text-xs text-slate-500">end of the {window} its claim falls in</span>
    </span>
  );
}
