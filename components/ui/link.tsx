"use client";

import NextLink from "next/link";
import { useRouter } from "next/navigation";
import type { ComponentProps } from "react";

type LinkProps = ComponentProps<typeof NextLink>;

/**
 * The console's in-app link: Next's <Link>, prefetching when a reader reaches for it (pointer over it,
 * keyboard focus, a touch) rather than when it scrolls into view. Every console page is dynamic, so a
 * prefetch is a server request (a session check, a render); on sight a page load made 16–43 of them,
 * one per row and chip, before anyone clicked (docs/test-time.md, "Stop 51"). `prefetch={false}` turns it off.
 */
export function Link({ href, prefetch, onMouseEnter, onFocus, onTouchStart, ...props }: LinkProps) {
  const router = useRouter();
  const target = typeof href === "string" && href.startsWith("/") ? href : null;
  const reachFor = () => {
    if (target && prefetch !== false) router.prefetch(target);
  };
  return (
    <NextLink
      {...props}
      href={href}
      prefetch={false}
      onMouseEnter={(event) => {
        reachFor();
        onMouseEnter?.(event);
      }}
      onFocus={(event) => {
        reachFor();
        onFocus?.(event);
      }}
      onTouchStart={(event) => {
        reachFor();
        onTouchStart?.(event);
      }}
    />
  );
}
