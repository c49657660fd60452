import type { HTMLAttributes } from "react";
import { twMerge } from "tailwind-merge";

/** A white panel with a light border: the frame of a filter bar, a form, a group of figures. */
export const CARD_CLASS = "rounded-lg border border-slate-200 bg-white";

export function cardClass(className?: string): string {
  return twMerge(CARD_CLASS, className);
}

/** A Card is a <div>; a caller adds its padding and spacing with className. */
export function Card({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cardClass(className)} {...props} />;
}
