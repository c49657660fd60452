import type { ComponentProps } from "react";
import { twMerge } from "tailwind-merge";
import { CHECKBOX_CLASS } from "@/components/ui/form-classes";

export type CheckboxProps = Omit<ComponentProps<"input">, "type">;

/** The console's one checkbox; name it with a wrapping <label> or aria-label. */
export function Checkbox({ className, ...props }: CheckboxProps) {
  return <input type="checkbox" className={twMerge(CHECKBOX_CLASS, className)} {...props} />;
}
