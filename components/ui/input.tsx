import type { ComponentProps } from "react";
import { twMerge } from "tailwind-merge";
import { FIELD_CLASS, LINE_FIELD_CLASS } from "@/components/ui/form-classes";

export type InputProps = ComponentProps<"input">;

/**
 * The console's one text-like input (text, search, email, password, number, url,
 * datetime-local). A checkbox is `Checkbox`, a file picker `FileInput`; a hidden input carries
 * no look.
 */
export function Input({ className, ...props }: InputProps) {
  if (props.type === "hidden") return <input {...props} />;
  return <input className={twMerge(FIELD_CLASS, LINE_FIELD_CLASS, className)} {...props} />;
}
