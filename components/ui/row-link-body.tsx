"use client";

import { useRouter } from "next/navigation";
import type { ReactNode } from "react";
import { isPlainRowClick } from "@/components/ui/row-click";

/**
 * The body of a server-rendered table whose rows open a page on click: one listener for all
 * rows, reading the row's `data-href`. The server renders the rows; only this stays on the client.
 */
export function RowLinkBody({ className, children }: { className: string; children: ReactNode }) {
  const router = useRouter();
  return (
    <tbody
      role="rowgroup"
      className={className}
      onClick={(event) => {
        const href = (event.target as HTMLElement).closest("tr")?.getAttribute("data-href");
        if (href && isPlainRowClick(event)) router.push(href);
      }}
    >
      {children}
    </tbody>
  );
}
