import type { ComponentProps } from "react";
import { twMerge } from "tailwind-merge";
import { FIELD_CLASS } from "@/components/ui/form-classes";

export type TextareaProps = ComponentProps<"textarea">;

/** The console's one multi-line field (reasons, JSON arguments, headers). */
export function Textarea({ className, ...props }: TextareaProps) {
  return <textarea className={twMerge(FIELD_CLASS, className)} {...props} />;
}
