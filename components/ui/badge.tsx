import type { HTMLAttributes } from "react";
import { twMerge } from "tailwind-merge";

/** What a badge says about its subject: good, bad, needs a look, for information, or neither. */
export type BadgeTone = "good" | "danger" | "warn" | "info" | "neutral" | "violet";

export const BADGE_TONES: Record<BadgeTone, string> = {
  good: "bg-emerald-50 text-emerald-800 ring-emerald-200",
  danger: "bg-red-50 text-red-800 ring-red-200",
  warn: "bg-amber-50 text-amber-800 ring-amber-200",
  info: "bg-sky-50 text-sky-800 ring-sky-200",
  neutral: "bg-slate-100 text-slate-700 ring-slate-200",
  violet: "bg-violet-50 text-violet-800 ring-violet-200",
};

/** A solid badge: a result that just happened (done, conflict), louder than a state. White words need a -700 face (4.5:1). */
const SOLID_TONES: Record<BadgeTone, string> = {
  good: "bg-emerald-700 text-white ring-emerald-700",
  danger: "bg-red-700 text-white ring-red-700",
  warn: "bg-amber-700 text-white ring-amber-700",
  info: "bg-sky-700 text-white ring-sky-700",
  neutral: "bg-slate-600 text-white ring-slate-600",
  violet: "bg-violet-700 text-white ring-violet-700",
};

type Props = HTMLAttributes<HTMLSpanElement> & {
  tone: BadgeTone;
  /** Monospace, for a value as stored (a status, an action name). */
  mono?: boolean;
  solid?: boolean;
  /** A dot before the words, for a state that wants the eye (stuck). */
  dot?: boolean;
  [data: `data-${string}`]: string | undefined;
};

const DOT: Record<BadgeTone, string> = {
  good: "bg-emerald-600",
  danger: "bg-red-600",
  warn: "bg-amber-600",
  info: "bg-sky-600",
  neutral: "bg-slate-500",
  violet: "bg-violet-600",
};

/** A short word in its tone, in a pill. */
export function Badge({ tone, mono, solid, dot, className, children, ...props }: Props) {
  const classes = [
    "inline-flex items-center gap-1 whitespace-nowrap rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset",
    solid ? SOLID_TONES[tone] : BADGE_TONES[tone],
    mono ? "font-mono" : "",
    className ?? "",
  ];
  return (
    <span className={twMerge(...classes)} {...props}>
      {dot ? <span aria-hidden="true" className={`h-1.5 w-1.5 rounded-full ${DOT[tone]}`} /> : null}
      {children}
    </span>
  );
}
