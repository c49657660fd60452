import { REPEAT_DELAY_BANDS } from "@/lib/repeats/repeat-delay-band";
import type { BandCounts } from "@/lib/repeats/repeat-figures";

/** One colour per band, darkest for the band nearest the window's end (the repeats a narrow window loses). */
const BAND_COLOURS = {
  at_once: "bg-sky-300",
  seconds: "bg-sky-500",
  around_timeout: "bg-indigo-500",
  minutes: "bg-violet-700",
  near_window_end: "bg-rose-700",
} as const;

type Props = { bands: BandCounts; label: string; compact?: boolean };

const totalOf = (bands: BandCounts) => REPEAT_DELAY_BANDS.reduce((sum, b) => sum + bands[b.band], 0);

/** The stacked bar alone: its label reads every band's count to a screen reader. */
export function RepeatDelayBar({ bands, label }: Omit<Props, "compact">) {
  const total = totalOf(bands);
  return (
    <div
      className="flex h-2.5 w-full overflow-hidden rounded-sm bg-slate-100"
      role="img"
      aria-label={`${label}: ${REPEAT_DELAY_BANDS.map((b) => `${bands[b.band]} ${b.label}`).join(", ")}`}
      data-testid="repeat-delay-bar"
    >
      {total > 0
        ? REPEAT_DELAY_BANDS.map((b) =>
            bands[b.band] > 0 ? (
              <span
                key={b.band}
                className={BAND_COLOURS[b.band]}
                style={{ width: `${(100 * bands[b.band]) / total}%` }}
              />
            ) : null,
          )
        : null}
    </div>
  );
}

/** Every band's count beside its swatch: the figures are the chart's meaning. */
export function RepeatDelayLegend({ bands, compact = false }: Pick<Props, "bands" | "compact">) {
  return (
    <dl
      className={`mt-1 grid gap-x-3 gap-y-0.5 text-xs ${compact ? "grid-cols-1" : "grid-cols-2 sm:grid-cols-5"}`}
      data-testid="repeat-delay-legend"
    >
      {REPEAT_DELAY_BANDS.map((b) => (
        <div key={b.band} className="flex items-center gap-1" title={b.hint} data-band={b.band}>
          <span aria-hidden="true" className={`inline-block size-2 shrink-0 rounded-sm ${BAND_COLOURS[b.band]}`} />
          <dt className="text-slate-600">{b.label}</dt>
          <dd className="ml-auto tabular-nums text-slate-900 sm:ml-1" data-figure={b.band}>
            {bands[b.band].toLocaleString("en")}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Repeats by delay band: the bar, then the counts. */
export function RepeatDelayBars({ bands, label, compact = false }: Props) {
  return (
    <div className="min-w-0" data-testid="repeat-delay-bars">
      <RepeatDelayBar bands={bands} label={label} />
      <RepeatDelayLegend bands={bands} compact={compact} />
    </div>
  );
}
