"use client";

import { useEffect, useRef, useState, type MouseEvent } from "react";
import { Button, buttonClass } from "@/components/ui/button";
import { formatBytes } from "@/lib/format/bytes";

/** How long a download runs before the page says it is under way: a quick one never flickers. */
export const PROGRESS_AFTER_MS = 1_000;
/** How often the received size is redrawn while a download runs. */
const REDRAW_MS = 250;

type Phase =
  { kind: "idle" } | { kind: "running"; bytes: number; visible: boolean } | { kind: "failed"; message: string };

/**
 * A download that is a plain link without JavaScript (`href` + `download`) and, with it, is
 * fetched by the page, so that a long one says how far it got — after a second, "Exporting CSV…
 * 2.4 MB received" with a Cancel — and an error answer (the API's JSON) is shown, not saved as the
 * file. The file is saved under the name the answer's Content-Disposition gives.
 */
export function DownloadLink({
  href,
  label,
  what,
  fallbackName,
  testId,
}: {
  href: string;
  /** The link's text, e.g. "CSV". */
  label: string;
  /** What the progress line calls it, e.g. "CSV export". */
  what: string;
  /** The file's name when the answer names none. */
  fallbackName: string;
  testId?: string;
}) {
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const abort = useRef<AbortController | null>(null);
  useEffect(() => () => abort.current?.abort(), []);

  async function start(event: MouseEvent<HTMLAnchorElement>) {
    // A middle click or a modified one opens the link as the browser does; so does a second click while one runs.
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    if (abort.current) return;
    const controller = new AbortController();
    abort.current = controller;
    let bytes = 0;
    let visible = false;
    setPhase({ kind: "running", bytes, visible });
    const redraw = () => setPhase({ kind: "running", bytes, visible });
    const showTimer = setTimeout(() => {
      visible = true;
      redraw();
    }, PROGRESS_AFTER_MS);
    const redrawTimer = setInterval(() => visible && redraw(), REDRAW_MS);
    try {
      const response = await fetch(href, { signal: controller.signal, credentials: "same-origin" });
      if (!response.ok || !response.body) {
        const body = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
        setPhase({ kind: "failed", message: body?.error?.message ?? `The ${what} failed (HTTP ${response.status}).` });
        return;
      }
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        bytes += value.byteLength;
      }
      const type = response.headers.get("content-type") ?? "application/octet-stream";
      save(new Blob(chunks, { type }), fileNameOf(response.headers.get("content-disposition")) ?? fallbackName);
      setPhase({ kind: "idle" });
    } catch {
      setPhase(
        controller.signal.aborted
          ? { kind: "idle" }
          : { kind: "failed", message: `The ${what} was interrupted; nothing was saved. Try again.` },
      );
    } finally {
      clearTimeout(showTimer);
      clearInterval(redrawTimer);
      abort.current = null;
    }
  }

  const running = phase.kind === "running";
  const saying = (running && phase.visible) || phase.kind === "failed";
  // Meant for a flex row of such links: on a phone the line it says goes under all of them, not between two.
  return (
    <>
      <a
        href={href}
        download
        onClick={start}
        aria-disabled={running || undefined}
        data-testid={testId}
        className={buttonClass({ variant: "secondary", size: "sm", className: "px-2.5" })}
      >
        {label}
      </a>
      {/* Announced once it shows: a second in, and again when it fails. */}
      <span
        role="status"
        className={
          saying ? "order-last basis-full text-xs text-slate-600 sm:order-none sm:basis-auto" : "text-xs text-slate-600"
        }
        data-testid={testId && `${testId}-progress`}
      >
        {phase.kind === "running" && phase.visible && (
          <>
            {`${capitalised(what)} under way… ${phase.bytes > 0 ? `${formatBytes(phase.bytes)} received` : "waiting for the first rows"}`}{" "}
            <Button variant="link" size="xs" onClick={() => abort.current?.abort()}>
              Cancel
            </Button>
          </>
        )}
        {phase.kind === "failed" && <span className="text-red-700">{phase.message}</span>}
      </span>
    </>
  );
}

/** The filename of `attachment; filename="x.csv"` (the API quotes it and uses no escapes). */
export function fileNameOf(disposition: string | null): string | null {
  const match = disposition ? /filename="([^"]+)"/.exec(disposition) : null;
  return match?.[1] ?? null;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Hands the file to the browser's own download, as the plain link would have. */
function save(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.click();
  // The download has its bytes once the click is handled; a minute is ample before the URL goes.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
