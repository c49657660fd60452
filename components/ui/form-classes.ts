/** The look every form control starts from; a caller's className is merged over it (tailwind-merge). */
export const FIELD_CLASS = "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm";

/** One-line controls share a height (a drop-down's own, 28 px), so a row of them and their labels line up. */
export const LINE_FIELD_CLASS = "h-7";

/** A small label above its control, the way the filter bars and panels name their fields. */
export const FIELD_LABEL_CLASS = "flex flex-col gap-0.5 text-xs font-medium text-slate-600";

/** A checkbox beside its words. */
export const CHECKBOX_CLASS = "h-4 w-4";

/** A label on a line of its own above its control, when a hint or an error follows the control. */
export const FIELD_LABEL_ABOVE_CLASS = "block text-xs font-medium text-slate-600";
