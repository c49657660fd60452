import type { ButtonHTMLAttributes } from "react";
import { twMerge } from "tailwind-merge";
import { LINE_FIELD_CLASS } from "./form-classes";

/** primary: the page's main action; good / info: the two resolutions (complete, release), in their badge tones. */
export type ButtonVariant = "primary" | "secondary" | "danger" | "good" | "info" | "ghost" | "link";
/** field: a button in a row of one-line controls (a filter bar's Apply), at their height (LINE_FIELD_CLASS). */
export type ButtonSize = "xs" | "sm" | "md" | "field";

const BASE =
  "inline-flex items-center justify-center gap-1 whitespace-nowrap rounded-md font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-600 focus-visible:ring-offset-1 disabled:cursor-not-allowed";

// Disabled looks disabled in every variant: a pale grey face with grey words, never darker or
// stronger than an enabled button beside it (half-opacity dark slate read as the more solid one).
// Not opacity either, so the words stay readable. `disabled:` follows `hover:` in the stylesheet,
// so hovering a disabled button changes nothing.
const DISABLED_FACE = "disabled:border-slate-200 disabled:bg-slate-100 disabled:text-slate-500";

const VARIANTS: Record<ButtonVariant, string> = {
  // Filled variants carry a border the colour of their face, so a disabled one keeps its size.
  primary: `border border-slate-900 bg-slate-900 text-white hover:border-slate-700 hover:bg-slate-700 ${DISABLED_FACE}`,
  secondary: `border border-slate-300 bg-white text-slate-800 hover:bg-slate-100 ${DISABLED_FACE}`,
  danger: `border border-red-700 bg-red-700 text-white hover:border-red-800 hover:bg-red-800 ${DISABLED_FACE}`,
  good: `border border-emerald-700 bg-emerald-700 text-white hover:border-emerald-600 hover:bg-emerald-600 ${DISABLED_FACE}`,
  info: `border border-sky-700 bg-sky-700 text-white hover:border-sky-600 hover:bg-sky-600 ${DISABLED_FACE}`,
  ghost: "text-slate-700 hover:bg-slate-100 disabled:bg-transparent disabled:text-slate-400",
  // A link-looking button keeps its text size and needs no padding: it sits inside a sentence or a row.
  link: "text-slate-700 underline underline-offset-2 hover:text-slate-900 disabled:text-slate-400 disabled:no-underline",
};

const SIZES: Record<ButtonSize, string> = {
  xs: "px-2 py-0.5 text-xs",
  sm: "px-3 py-1 text-xs",
  md: "px-3 py-1.5 text-sm",
  field: `${LINE_FIELD_CLASS} px-3 text-sm`,
};

const LINK_SIZES: Record<ButtonSize, string> = { xs: "text-xs", sm: "text-xs", md: "text-sm", field: "text-sm" };

/**
 * The classes of a button of this variant and size, for an element that must be something
 * else (a Next <Link>, a download <a>) yet look and focus like a button.
 */
export function buttonClass({
  variant = "secondary",
  size = "md",
  className,
}: { variant?: ButtonVariant; size?: ButtonSize; className?: string } = {}): string {
  const sizing = variant === "link" ? LINK_SIZES[size] : SIZES[size];
  // twMerge: a caller's `py-2` replaces the size's `py-1.5` instead of racing it in the stylesheet.
  return twMerge(BASE, VARIANTS[variant], sizing, className);
}

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; size?: ButtonSize };

/** The console's one button: a variant for what it does, a size for where it sits, a visible focus ring. */
export function Button({ variant = "secondary", size = "md", className, type = "button", ...props }: ButtonProps) {
  return <button type={type} className={buttonClass({ variant, size, className })} {...props} />;
}
