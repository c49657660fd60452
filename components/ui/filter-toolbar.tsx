import type { FormHTMLAttributes, HTMLAttributes } from "react";
import { twMerge } from "tailwind-merge";
import { cardClass } from "@/components/ui/card";

const ROW = "flex flex-wrap items-end gap-3";

type Common = {
  /** In a Card above the table (records, audit, duplicates); bare when it sits in a page's header row. */
  framed?: boolean;
};

function toolbarClass(framed: boolean | undefined, className: string | undefined): string {
  return framed ? cardClass(twMerge("mb-4", ROW, "p-3", className)) : twMerge(ROW, className);
}

type FormProps = Common & FormHTMLAttributes<HTMLFormElement> & { "aria-label": string };

/**
 * The filters above a DataTable: one wrapping row of Fields (controls bottom-aligned, so labels
 * of different heights line up), usually a form whose submit applies what was typed.
 */
export function FilterToolbar({ framed, className, ...props }: FormProps) {
  return <form className={toolbarClass(framed, className)} {...props} />;
}

/** The same row when its controls apply on change and a form of its own sits inside it (metrics). */
export function FilterToolbarRow({ framed, className, ...props }: Common & HTMLAttributes<HTMLDivElement>) {
  return <div className={toolbarClass(framed, className)} {...props} />;
}
