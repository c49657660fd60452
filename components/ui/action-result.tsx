"use client";

import { useEffect, useRef, type ReactNode } from "react";
import { twMerge } from "tailwind-merge";

/**
 * Where an async action's result appears (an answer, a confirmation, a failure). It is a polite
 * live region, so a screen reader announces what happened, and it takes focus when `resultKey`
 * changes to a new non-null value, so a keyboard user lands on the result instead of on <body>
 * when the button that started the action is disabled or replaced. Render it before the result
 * arrives (empty) so assistive technology is already watching it.
 */
export function ActionResult({
  resultKey,
  label,
  className,
  children,
}: {
  /** Changes each time a new result arrives (a counter, a phase, an id); null while there is none. */
  resultKey: string | number | null;
  /** What the region is, for a screen reader ("processor answer", "resolution"). */
  label: string;
  className?: string;
  children?: ReactNode;
}) {
  const region = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (resultKey !== null) region.current?.focus();
  }, [resultKey]);
  return (
    <div
      ref={region}
      role="status"
      aria-live="polite"
      aria-label={label}
      tabIndex={-1}
      className={twMerge(
        "rounded-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-600 focus-visible:ring-offset-2",
        className,
      )}
    >
      {children}
    </div>
  );
}
