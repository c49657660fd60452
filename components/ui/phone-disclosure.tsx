"use client";

import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { buttonClass } from "@/components/ui/button";

/** Below the breakpoint: the button shows and the panel hides until opened; from it up: the panel, always. */
const BREAKPOINTS = {
  sm: { button: "sm:hidden", panel: "sm:block" },
  md: { button: "md:hidden", panel: "md:block" },
} as const;

const FOCUSABLE = "a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea";

/**
 * Something a phone's first screen cannot spare room for (a filter form, counts by tool), folded
 * behind a disclosure button below `from`; wider screens show it as before. Opening moves focus to
 * its first control; Escape inside closes it and gives focus back to the button.
 */
export function PhoneDisclosure({
  id,
  label,
  from = "md",
  buttonTestId,
  children,
}: {
  /** The panel's id, for aria-controls. */
  id: string;
  label: ReactNode;
  from?: keyof typeof BREAKPOINTS;
  buttonTestId?: string;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (open) panel.current?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
  }, [open]);

  function closeOnEscape(event: KeyboardEvent) {
    // From the breakpoint up the button is not displayed: nothing to close, nowhere to send focus.
    if (event.key !== "Escape" || !open || !button.current?.checkVisibility()) return;
    setOpen(false);
    button.current.focus();
  }

  return (
    <>
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-controls={id}
        onClick={() => setOpen(!open)}
        className={buttonClass({ variant: "secondary", className: `mb-3 ${BREAKPOINTS[from].button}` })}
        data-testid={buttonTestId}
      >
        <Chevron open={open} />
        {label}
      </button>
      <div
        ref={panel}
        id={id}
        onKeyDown={closeOnEscape}
        className={`${open ? "block" : "hidden"} ${BREAKPOINTS[from].panel}`}
      >
        {children}
      </div>
    </>
  );
}

function Chevron({ open }: { open: boolean }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 16 16"
      className="h-3.5 w-3.5"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
    >
      <path d={open ? "M4 10l4-4 4 4" : "M4 6l4 4 4-4"} />
    </svg>
  );
}
