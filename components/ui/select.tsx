import type { ComponentProps } from "react";
import { twMerge } from "tailwind-merge";
import { FIELD_CLASS, LINE_FIELD_CLASS } from "@/components/ui/form-classes";

export type SelectProps = ComponentProps<"select">;

/** The console's one drop-down: the field look, native <option> children. */
export function Select({ className, ...props }: SelectProps) {
  return <select className={twMerge(FIELD_CLASS, LINE_FIELD_CLASS, className)} {...props} />;
}
