import type { ComponentProps } from "react";
import { twMerge } from "tailwind-merge";

export type FileInputProps = Omit<ComponentProps<"input">, "type">;

/** A file picker: the browser's own button and file name, without the text field's border. */
export function FileInput({ className, ...props }: FileInputProps) {
  return <input type="file" className={twMerge("block text-xs", className)} {...props} />;
}
