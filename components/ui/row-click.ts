import type { MouseEvent } from "react";

/** For a row that opens on click: ignore clicks on its links and buttons, and text being selected. */
export function isPlainRowClick(event: MouseEvent<HTMLElement>): boolean {
  return (
    !(event.target as HTMLElement).closest("a,button,input,label,select,textarea") && !window.getSelection()?.toString()
  );
}
