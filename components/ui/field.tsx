import { useId, type ReactNode } from "react";
import { twMerge } from "tailwind-merge";
import { FIELD_LABEL_ABOVE_CLASS, FIELD_LABEL_CLASS } from "@/components/ui/form-classes";

/** What Field hands its control: the id its label names, and the hint and error that describe it. */
export type FieldControlProps = {
  id?: string;
  "aria-describedby"?: string;
  "aria-invalid"?: true;
};

type Props = {
  label: ReactNode;
  /** Words under the control, read after its name (aria-describedby). */
  hint?: ReactNode;
  /** A message about the value; marks the control aria-invalid and is announced. A field that may
   * show one passes null while it has none, so its markup does not change shape when one comes. */
  error?: ReactNode;
  /** aria-invalid without a message here (the message is shown elsewhere). */
  invalid?: boolean;
  /** The label's classes, merged over the small label above its control (FIELD_LABEL_CLASS, or
   * FIELD_LABEL_ABOVE_CLASS when a hint or an error follows). */
  className?: string;
  hintClassName?: string;
  children: ReactNode | ((control: FieldControlProps) => ReactNode);
};

/**
 * A labelled control. Without a hint or an error it is one <label> around its words and control
 * (no ids needed). With either, the label names the control by id and the hint and error follow
 * it as siblings, so the parent's spacing lays them out as before.
 */
export function Field({ label, hint, error, invalid, className, hintClassName, children }: Props) {
  const id = useId();
  const render = (control: FieldControlProps) => (typeof children === "function" ? children(control) : children);
  if (hint === undefined && error === undefined && invalid === undefined) {
    return (
      <label className={twMerge(FIELD_LABEL_CLASS, className)}>
        {label}
        {render({})}
      </label>
    );
  }
  const hasError = error !== undefined && error !== null && error !== false;
  const hintId = hint === undefined ? undefined : `${id}-hint`;
  const errorId = hasError ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <>
      <label className={twMerge(FIELD_LABEL_ABOVE_CLASS, className)} htmlFor={`${id}-control`}>
        {label}
      </label>
      {render({
        id: `${id}-control`,
        "aria-describedby": describedBy,
        "aria-invalid": hasError || invalid ? true : undefined,
      })}
      {hint === undefined ? null : (
        <p id={hintId} className={twMerge("text-xs text-slate-500", hintClassName)}>
          {hint}
        </p>
      )}
      {hasError ? (
        <p id={errorId} role="alert" className="text-xs text-red-700">
          {error}
        </p>
      ) : null}
    </>
  );
}
