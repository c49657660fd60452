"use client";

import { useEffect, useId, useRef, type ReactNode, type RefObject } from "react";
import { twMerge } from "tailwind-merge";
import { Button } from "@/components/ui/button";

/**
 * The console's modal <dialog> (the bulk plan, Verify…): opened with showModal() where the person is
 * looking (the page behind is inert), Escape and Close close it — except while `busy`, when work it
 * started is still answering — and focus goes back to the button that opened it (or the first one
 * still enabled beside it). A sticky header holds the title, a line of what it does, and Close.
 */
export function ModalDialog({
  title,
  description,
  busy,
  onClose,
  initialFocus,
  testId,
  closeTestId,
  phase,
  className,
  children,
}: {
  title: ReactNode;
  description: ReactNode;
  busy: boolean;
  onClose: () => void;
  /** Takes focus once open; showModal() alone would focus the first button (Close). */
  initialFocus?: RefObject<HTMLElement | null>;
  testId: string;
  closeTestId: string;
  phase: string;
  /** Width limits, e.g. max-w-3xl. */
  className?: string;
  children: ReactNode;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (element && !element.open) element.showModal();
    initialFocus?.current?.focus();
    return () => {
      if (element?.open) element.close();
      const back =
        opener && opener.isConnected && !opener.matches(":disabled")
          ? opener
          : opener?.parentElement?.querySelector<HTMLElement>("button:not(:disabled)");
      back?.focus();
    };
    // Opened once per mount; the ref's element is the one to focus.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <dialog
      ref={dialog}
      className={twMerge(
        "m-auto max-h-[92vh] w-[calc(100vw-1.5rem)] overflow-y-auto rounded-lg border border-slate-300 bg-slate-50 p-0 text-left text-slate-900 shadow-xl backdrop:bg-slate-900/40",
        className,
      )}
      aria-labelledby={titleId}
      data-testid={testId}
      data-phase={phase}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
      onClose={onClose}
    >
      <div className="sticky top-0 z-10 flex items-start gap-3 border-b border-slate-200 bg-slate-50 px-4 py-3">
        <div className="min-w-0">
          <h2 id={titleId} className="text-base font-semibold text-slate-900">
            {title}
          </h2>
          <p className="text-xs text-slate-600">{description}</p>
        </div>
        <Button
          variant="secondary"
          size="sm"
          onClick={() => dialog.current?.close()}
          disabled={busy}
          className="ml-auto"
          data-testid={closeTestId}
        >
          Close
        </Button>
      </div>
      {children}
    </dialog>
  );
}
