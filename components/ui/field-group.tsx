import type { FieldsetHTMLAttributes, ReactNode } from "react";
import { twMerge } from "tailwind-merge";

/** A FieldGroup: its legend above its controls, as far above them as a label above its control. */
const FIELD_GROUP_CLASS = "flex flex-col gap-0.5";

/** A FieldGroup's legend: floated, so it is laid out as a flex item, not in the fieldset's border. */
const FIELD_LEGEND_CLASS = "float-left text-xs font-medium text-slate-600";

/**
 * A FieldGroup's controls, a wrapping row of their own: were the legend in that row, the fieldset
 * would be as wide as the legend and the controls side by side (a flex row's max-content).
 */
const FIELD_GROUP_ROW_CLASS = "flex flex-wrap items-end gap-1.5";

type Props = FieldsetHTMLAttributes<HTMLFieldSetElement> & { legend: ReactNode };

/**
 * Several controls under one small legend (a range, a field's name and value), spaced like a Field's
 * label above its control, so the legend lines up with the labels beside it in a filter bar.
 */
export function FieldGroup({ legend, className, children, ...props }: Props) {
  return (
    <fieldset className={twMerge(FIELD_GROUP_CLASS, className)} {...props}>
      <legend className={FIELD_LEGEND_CLASS}>{legend}</legend>
      <div className={FIELD_GROUP_ROW_CLASS}>{children}</div>
    </fieldset>
  );
}
