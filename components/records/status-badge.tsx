import { Badge, type BadgeTone } from "@/components/ui/badge";
import { formatDuration } from "@/lib/config/duration";

const TONES: Record<string, BadgeTone> = { completed: "good", in_progress: "warn" };

type Props = {
  status: string;
  stuck?: boolean;
  /** The tool's threshold, for the title: known on the list and the detail page, not in a lookup. */
  stuckAfterMs?: number;
  /**
   * "state" (lists): a stuck claim reads just "stuck", with a dot. "stored" (a record's own page,
   * lookups): the status as written, monospace, "· stuck" after it.
   */
  wording?: "state" | "stored";
  testId?: string;
};

function title(status: string, stuck: boolean, stuckAfterMs: number | undefined): string {
  const threshold = stuckAfterMs === undefined ? "" : ` (${formatDuration(stuckAfterMs)})`;
  if (stuck)
    return `in_progress for longer than this tool's threshold${threshold}: the processor may or may not have acted`;
  if (status === "completed") return "the writer stored the outcome; a repeat is answered from it";
  if (status === "in_progress")
    return `claimed, no outcome yet${stuckAfterMs === undefined ? "" : `; counts as stuck after ${formatDuration(stuckAfterMs)}`}`;
  return "a status the console does not know; shown as written";
}

/**
 * A record's status: completed green, in_progress amber, stuck red; any other status a writer
 * wrote is shown as-is, in grey — never a crash, never hidden.
 */
export function StatusBadge({ status, stuck = false, stuckAfterMs, wording = "state", testId }: Props) {
  const tone: BadgeTone = stuck ? "danger" : (TONES[status] ?? "neutral");
  const known = stuck || status in TONES;
  const dataStatus = stuck ? "stuck" : known ? status : "other";
  if (wording === "stored") {
    return (
      <Badge tone={tone} mono title={title(status, stuck, stuckAfterMs)} data-status={dataStatus} data-testid={testId}>
        {status}
        {stuck ? " · stuck" : ""}
      </Badge>
    );
  }
  return (
    <Badge
      tone={tone}
      dot={stuck}
      title={title(status, stuck, stuckAfterMs)}
      data-status={dataStatus}
      data-testid={testId}
    >
      {stuck ? "stuck" : status}
    </Badge>
  );
}
