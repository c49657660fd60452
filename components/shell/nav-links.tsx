"use client";

import { Link } from "@/components/ui/link";
import { usePathname } from "next/navigation";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { NAV_ITEMS } from "@/components/shell/nav-items";

const NAV_ID = "main-nav";

/**
 * The main navigation. From md up it is the side bar's list; below md it hides behind a Menu
 * disclosure button beside `brand`, which Escape and any navigation close.
 */
export function NavLinks({ brand }: { brand: ReactNode }) {
  const pathname = usePathname();
  // The path the menu was opened on: navigating elsewhere closes it with no effect to run.
  const [openedOn, setOpenedOn] = useState<string | null>(null);
  const open = openedOn === pathname;
  const button = useRef<HTMLButtonElement>(null);
  const nav = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!open) return;
    function onKey(event: KeyboardEvent) {
      if (event.key !== "Escape") return;
      const inside = nav.current?.contains(document.activeElement) || document.activeElement === button.current;
      setOpenedOn(null);
      // Focus goes back to the button only from inside the menu; Escape elsewhere leaves it where it is.
      if (inside) button.current?.focus();
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  return (
    <>
      <div className="flex items-center justify-between gap-3">
        {brand}
        <button
          ref={button}
          type="button"
          aria-expanded={open}
          aria-controls={NAV_ID}
          onClick={() => setOpenedOn(open ? null : pathname)}
          className="inline-flex items-center gap-2 rounded-md border border-slate-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-800 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-sky-400 md:hidden"
          data-testid="menu-button"
        >
          <MenuIcon open={open} />
          Menu
        </button>
      </div>
      <nav
        ref={nav}
        id={NAV_ID}
        aria-label="Main"
        className={`${open ? "flex" : "hidden"} flex-col gap-0.5 border-t border-slate-700 pt-2 md:flex md:border-0 md:pt-0`}
      >
        {NAV_ITEMS.map((item) => {
          const active = item.href === "/" ? pathname === "/" : pathname.startsWith(item.href);
          return (
            <Link
              key={item.href}
              href={item.href}
              aria-current={active ? "page" : undefined}
              // The current page's link navigates nowhere, so it closes the menu itself.
              onClick={() => setOpenedOn(null)}
              className={`rounded-md px-3 py-2.5 text-sm md:py-1.5 ${
                active ? "bg-slate-800 font-medium text-white" : "text-slate-300 hover:bg-slate-800/60 hover:text-white"
              }`}
            >
              {item.label}
            </Link>
          );
        })}
      </nav>
    </>
  );
}

function MenuIcon({ open }: { open: boolean }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 16 16" className="h-4 w-4" fill="none" stroke="currentColor" strokeWidth="1.5">
      {open ? <path d="M3.5 3.5l9 9M12.5 3.5l-9 9" /> : <path d="M2 4h12M2 8h12M2 12h12" />}
    </svg>
  );
}
